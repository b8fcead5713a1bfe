// A start-up that fails on its database never shows the database password: not in the error, not
// in the line main logs for it (`log.fatal({ err }, 'start-up failed')`), not in any other line.
// And a started service reports its database URL without the password.
import t from 'tap';
import { loadConfig } from '../../src/config.ts';
import { startService } from '../../src/service.ts';
import { captureLog } from '../support/captured-log.ts';
import { testDatabaseUrl } from '../support/database.ts';
import { freePort } from '../support/free-port.ts';
import { startTestService } from '../support/service.ts';

const SECRET = 'Pw-9f3kQ7zL';

/** Every message of `error` and of its causes. */
const messages = (error: unknown): string[] =>
  error instanceof Error ? [String(error), ...messages(error.cause)] : [];

const failingStarts: [string, () => Promise<string>][] = [
  [
    'nothing listens at DATABASE_URL',
    async () => `postgres://vigil:${SECRET}@127.0.0.1:${await freePort()}/vigil`,
  ],
  [
    'DATABASE_URL is no valid URL',
    async () => `postgres://vigil:${SECRET}@127.0.0.1:99999999/vigil`,
  ],
];

for (const [label, databaseUrl] of failingStarts) {
  void t.test(`${label}: start-up fails without showing the password`, async (t) => {
    const { log, lines } = captureLog('start-secrets');
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: await databaseUrl(),
      STORAGE_WORKERS: '1',
      DB_QUERY_TIMEOUT_MS: '1000',
    });
    const failure = await startService(config, log).then(
      () => null,
      (error: unknown) => error,
    );
    t.ok(failure instanceof Error, 'start-up rejects');
    log.fatal({ err: failure }, 'start-up failed');
    t.same(
      messages(failure).filter((m) => m.includes(SECRET)),
      [],
      'no error message has it',
    );
    t.ok(
      lines.some((line) => line.includes('start-up failed')),
      'the failure is logged',
    );
    t.same(
      lines.filter((line) => line.includes(SECRET)),
      [],
      'no log line has it',
    );
  });
}

void t.test('a running service shows its database URL without the password', async (t) => {
  // The embedded run's URL has a password; a server that needs none (CI's) ignores one added.
  const url = new URL(testDatabaseUrl());
  if (url.password === '') url.password = SECRET;
  const { service } = await startTestService(t, {}, { databaseUrl: url.href });
  t.notMatch(service.databaseUrl, url.password, 'not in databaseUrl');
  t.match(service.databaseUrl, ':****@', 'which shows where it was');
});
