/**
 * A Vigil child process (service-process.ts) seen as a TestService, so that the helpers written
 * for the in-process service (rulesApi, contactPointsApi, alertsOf, pumpErrors...) drive it too:
 * requests carry the admin key, `stop` is SIGTERM and the wait for its exit.
 */
import type { RunDatabase } from './run-databases.ts';
import { requester, type TestService } from './service.ts';
import { stopServer, type ServerProcess } from './service-process.ts';

export function processService(proc: ServerProcess, db: RunDatabase): TestService {
  const url = db.env.DATABASE_URL ?? '';
  return {
    service: {
      port: proc.port,
      databaseUrl: url,
      stop: async () => {
        await stopServer(proc);
      },
    },
    db: { url, schema: db.schema, sql: db.sql },
    base: proc.url,
    request: requester(proc.url),
  };
}
