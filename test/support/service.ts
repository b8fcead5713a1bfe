/**
 * Starts the real service (same composition root as production) on a free port against the
 * test file's own schema, and stops it at teardown.
 */
import { loadConfig } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/log.ts';
import { startService, type RunningService, type ServiceHooks } from '../../src/service.ts';
import { createTestDatabase, withMigrationGate, type TestDatabase } from './database.ts';
import { TEST_AUTH_ENV, withAdminKey } from './keys.ts';

export interface TestService {
  readonly service: RunningService;
  readonly db: TestDatabase;
  readonly base: string;
  /**
   * fetch against the service with the admin key (unless `headers` name another key, or give
   * `authorization: ''` for none), with a JSON body when `json` is given.
   */
  request(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface TestServiceOptions {
  /** The PostgreSQL server to use instead of the run's DATABASE_URL (a schema of its own in it). */
  readonly databaseUrl?: string;
  /**
   * An existing test database (url and schema) to start on instead of a new schema, e.g. the `db`
   * of a stopped TestService, to test a restart; its owner drops it.
   */
  readonly database?: TestDatabase;
  /** Timers the test fires itself instead of the service's real ones. */
  readonly hooks?: ServiceHooks;
  /** Where the service logs (a captured log, to check what it says); default: LOG_LEVEL to stdout. */
  readonly log?: Logger;
}

/** `env` overrides configuration variables (DATABASE_URL and DATABASE_SCHEMA excepted). */
export async function startTestService(
  t: Teardown,
  env: Record<string, string> = {},
  options: TestServiceOptions = {},
): Promise<TestService> {
  const db = options.database ?? (await createTestDatabase(t, options.databaseUrl));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'fatal',
    STORAGE_WORKERS: '1',
    DB_CONNECTIONS_PER_WORKER: '2',
    // Test receivers listen on 127.0.0.1; the address check has its own tests, which turn it on.
    NOTIFY_ALLOW_PRIVATE: 'true',
    ...TEST_AUTH_ENV,
    ...env,
    DATABASE_URL: db.url,
    DATABASE_SCHEMA: db.schema,
  });
  // The service migrates at start-up too.
  const service = await withMigrationGate(db.url, () =>
    startService(
      config,
      options.log ?? createLogger(config.LOG_LEVEL, 'test-service'),
      options.hooks,
    ),
  );
  t.teardown(() => service.stop());
  const base = `http://127.0.0.1:${service.port}`;
  return { service, db, base, request: requester(base) };
}

/**
 * fetch against the service at `base` with the admin key (unless `headers` name another key, or
 * give `authorization: ''` for none), with a JSON body when `json` is given.
 */
export function requester(base: string): TestService['request'] {
  return (path, init = {}) => {
    const { json, ...rest } = init;
    if (json === undefined) return fetch(base + path, withAdminKey(rest));
    return fetch(
      base + path,
      withAdminKey({
        method: 'POST',
        ...rest,
        headers: {
          'content-type': 'application/json',
          ...(rest.headers as Record<string, string>),
        },
        body: JSON.stringify(json),
      }),
    );
  };
}
