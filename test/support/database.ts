/**
 * Per-test-file isolation: each file migrates its own schema in the test database and drops it
 * at teardown, so tap can run files in parallel.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import postgres from 'postgres';
import { migrateUp } from '../../src/db/migrate.ts';
import { createLogger } from '../../src/log.ts';

export interface TestDatabase {
  readonly url: string;
  readonly schema: string;
  /** A direct client on that schema, for assertions on what is really stored. */
  readonly sql: postgres.Sql;
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

export const testDatabaseUrl = (): string => {
  const url = process.env.DATABASE_URL;
  if (url === undefined || url === '')
    throw new Error('DATABASE_URL is not set: run the tests with npm test');
  return url;
};

/** Key of the advisory lock that `withMigrationGate` holds (any constant of the tests' own). */
const MIGRATION_GATE = 0x7669_6769_6c;

/**
 * Runs `work` (anything that migrates: a new schema, a service start) while no other test process
 * does. node-pg-migrate takes one database-wide advisory lock and fails at once, rather than
 * waiting, when another process holds it; tap runs test files in parallel against one database.
 * The lock is taken in 'wait' mode on a connection of its own and released with it.
 */
export async function withMigrationGate<T>(url: string, work: () => Promise<T>): Promise<T> {
  const gate = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await gate`SELECT pg_advisory_lock(${MIGRATION_GATE})`;
    return await work();
  } finally {
    await gate.end({ timeout: 5 });
  }
}

/** A fresh schema in `url` (default: the run's DATABASE_URL), dropped at teardown. */
export async function createTestDatabase(
  t: Teardown,
  url: string = testDatabaseUrl(),
): Promise<TestDatabase> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  await withMigrationGate(url, () => migrateUp(url, schema, createLogger('warn', 'test')));
  const sql = postgres(url, { max: 2, onnotice: () => {}, connection: { search_path: schema } });
  t.teardown(async () => {
    await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await sql.end({ timeout: 5 });
  });
  return { url, schema, sql };
}

/**
 * A fresh schema as it was just before `migration` (a file name in migrations/): every earlier
 * migration applied, so a test can store rows of the old shape; `migrateUp` on it then applies
 * the rest. Dropped at teardown.
 */
export async function createDatabaseBefore(
  t: Teardown,
  migration: string,
  url: string = testDatabaseUrl(),
): Promise<TestDatabase> {
  const dir = fileURLToPath(new URL('../../migrations', import.meta.url));
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const sql = postgres(url, { max: 2, onnotice: () => {}, connection: { search_path: schema } });
  t.teardown(async () => {
    await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await sql.end({ timeout: 5 });
  });
  const earlier = readdirSync(dir).filter((f) => f.endsWith('.ts') && f < migration).length;
  await withMigrationGate(url, () =>
    runner({
      databaseUrl: url,
      dir,
      direction: 'up',
      count: earlier,
      migrationsTable: 'pgmigrations',
      schema,
      createSchema: true,
      checkOrder: true,
      log: () => {},
    }),
  );
  return { url, schema, sql };
}
