/**
 * @module Runs the node-pg-migrate migrations up, idempotently, before the port opens (main
 * thread at start-up, and the tests for their own schemas).
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import type { Logger } from '../log.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url));

/** A stable 31-bit advisory lock key per schema. */
function lockValueOf(schema: string): number {
  let hash = 0x7669676c;
  for (const char of schema) hash = (Math.imul(hash, 31) + (char.codePointAt(0) ?? 0)) | 0;
  return hash & 0x7fffffff;
}

/**
 * Whether every migration file is recorded as applied in `schema`: the usual case at a restart,
 * answered by one query instead of node-pg-migrate's load, lock and checks (about a second of a
 * start). A row is committed with its migration, so "all recorded" means all done; anything else
 * (no table yet, a new file, an error) goes the full way.
 */
async function allApplied(databaseUrl: string, schema: string): Promise<boolean> {
  const files = (await readdir(MIGRATIONS_DIR))
    .filter((file) => /\.(ts|js)$/.test(file) && !file.endsWith('.d.ts'))
    .map((file) => path.basename(file, path.extname(file)));
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    const rows = await sql<{ name: string }[]>`SELECT name FROM ${sql(schema)}.pgmigrations`;
    const applied = new Set(rows.map((row) => row.name));
    return (
      files.length > 0 && applied.size === files.length && files.every((name) => applied.has(name))
    );
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export async function migrateUp(databaseUrl: string, schema: string, log: Logger): Promise<void> {
  if (await allApplied(databaseUrl, schema)) return;
  const { runner } = await import('node-pg-migrate');
  const applied = await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    schema,
    createSchema: true,
    checkOrder: true,
    // Another process migrating the same schema (a second instance starting, parallel tests) is
    // waited for instead of failing start-up; schemas do not wait on one another.
    advisoryLockMode: 'wait',
    lockValue: lockValueOf(schema),
    log: () => {},
    logger: {
      debug: () => {},
      info: () => {},
      warn: (m: string) => log.warn(m),
      error: (m: string) => log.error(m),
    },
  });
  if (applied.length > 0)
    log.info({ migrations: applied.map((m) => m.name) }, 'migrations applied');
}
