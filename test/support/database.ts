/**
 * Per-test-file isolation: each file migrates its own schema in the test database and drops it
 * at teardown, so tap can run files in parallel.
 */
import { randomBytes } from 'node:crypto';
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
  if (url === undefined || url === '') throw new Error('DATABASE_URL is not set: run the tests with npm test');
  return url;
};

export async function createTestDatabase(t: Teardown): Promise<TestDatabase> {
  const url = testDatabaseUrl();
  const schema = `t_${randomBytes(6).toString('hex')}`;
  await migrateUp(url, schema, createLogger('warn', 'test'));
  const sql = postgres(url, { max: 2, onnotice: () => {}, connection: { search_path: schema } });
  t.teardown(async () => {
    await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await sql.end({ timeout: 5 });
  });
  return { url, schema, sql };
}
