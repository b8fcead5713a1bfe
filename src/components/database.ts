/**
 * @module The database part: the embedded PostgreSQL when no DATABASE_URL is set, and the
 * migrations, which run before any thread that uses the tables starts.
 */
import type { Config } from '../config.ts';
import { startEmbeddedPostgres } from '../db/embedded-postgres.ts';
import { migrateUp } from '../db/migrate.ts';
import type { Logger } from '../log.ts';
import type { StartupTimings } from '../startup-timings.ts';
import type { StopStack } from './stop-stack.ts';

/** The database's URL (with its password: never logged as is). */
export async function startDatabase(
  config: Config,
  log: Logger,
  stack: StopStack,
  timings: StartupTimings,
): Promise<string> {
  if (config.DATABASE_URL !== undefined) {
    timings.lap('postgres');
    return config.DATABASE_URL;
  }
  const embedded = await startEmbeddedPostgres(config.VIGIL_DATA_DIR, config.EMBEDDED_PG_PORT, log);
  // Last to stop: every connection of the parts above is closed by then.
  stack.push('embedded PostgreSQL', () => embedded.stop());
  timings.lap('postgres');
  return embedded.url;
}

export async function migrateDatabase(
  config: Config,
  databaseUrl: string,
  log: Logger,
  timings: StartupTimings,
): Promise<void> {
  await migrateUp(databaseUrl, config.DATABASE_SCHEMA, log);
  timings.lap('migrations');
}
