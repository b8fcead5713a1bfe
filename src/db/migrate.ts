/**
 * @module Runs the node-pg-migrate migrations up, idempotently, before the port opens (main
 * thread at start-up, and the tests for their own schemas).
 */
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import type { Logger } from '../log.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url));

/** A stable 31-bit advisory lock key per schema. */
function lockValueOf(schema: string): number {
  let hash = 0x7669676c;
  for (const char of schema) hash = (Math.imul(hash, 31) + (char.codePointAt(0) ?? 0)) | 0;
  return hash & 0x7fffffff;
}

export async function migrateUp(databaseUrl: string, schema: string, log: Logger): Promise<void> {
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
