// A first start with no key configured: the key secret and a first admin key are made in the data
// directory (owner-only files), the log says where the key is and never the key, the key works,
// and a restart makes no second one. And VIGIL_AUTH=off: everything open, said at start, every 10
// minutes and by the status endpoint.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { loadConfig } from '../../src/config.ts';
import { AUTH_OFF_WARNING_MS, startAuthentication } from '../../src/auth/start-auth.ts';
import type { StoragePool } from '../../src/actors/storage-pool.ts';
import { captureLog } from '../support/captured-log.ts';
import { keyHeaders } from '../support/keys.ts';
import { startTestService } from '../support/service.ts';

const dataDir = await mkdtemp(path.join(tmpdir(), 'vigil-first-key-'));
t.teardown(() => rm(dataDir, { recursive: true, force: true }));
/** No bootstrap key, no configured secret: what a user's first `npm start` has. */
const FRESH = { VIGIL_BOOTSTRAP_ADMIN_KEY: '', VIGIL_KEY_SECRET: '', VIGIL_DATA_DIR: dataDir };

t.test('the first start makes an admin key in admin.key; a restart keeps it', async (t) => {
  const captured = captureLog('first-key');
  const first = await startTestService(t, FRESH, { log: captured.log });
  const keyFile = path.join(dataDir, 'admin.key');
  const key = (await readFile(keyFile, 'utf8')).trim();
  t.match(key, /^vgl_admin_/);
  t.equal((await stat(keyFile)).mode & 0o777, 0o600, 'admin.key is the owner’s alone');
  t.equal((await stat(path.join(dataDir, 'key-secret'))).mode & 0o777, 0o600, 'so is key-secret');
  const logged = captured.lines.join('');
  t.match(logged, keyFile, 'the log says where the key is');
  t.notMatch(logged, key, 'and never the key');
  t.notMatch(logged, key.slice(16), 'nor its secret part');

  const keys = await first.request('/api/v1/keys', { headers: keyHeaders(key) });
  t.equal(keys.status, 200, 'the key is an admin key');
  t.match(await keys.json(), [{ name: 'first admin key', scope: 'admin' }]);
  const noKey = await first.request('/api/v1/keys', { headers: { authorization: '' } });
  t.equal(noKey.status, 401, 'and there is no way in without it');
  await first.service.stop();

  const again = await startTestService(t, FRESH, { database: first.db });
  t.equal((await readFile(keyFile, 'utf8')).trim(), key, 'admin.key unchanged');
  const listed = (await (
    await again.request('/api/v1/keys', { headers: keyHeaders(key) })
  ).json()) as unknown[];
  t.equal(listed.length, 1, 'no second key was made, and the kept secret still checks the key');
});

t.test('VIGIL_AUTH=off opens every route and says so', async (t) => {
  const captured = captureLog('auth-off');
  const svc = await startTestService(t, { VIGIL_AUTH: 'off' }, { log: captured.log });
  const open = { headers: { authorization: '' } };
  t.equal((await svc.request('/api/v1/metrics', open)).status, 200, 'no key needed to read');
  t.equal((await svc.request('/api/v1/keys', open)).status, 200, 'nor for admin routes');
  t.match(await (await svc.request('/api/v1/events/test')).json(), { authentication: 'off' });
  t.match(captured.lines.join(''), /VIGIL_AUTH=off/, 'a warning at start');
});

t.test('with VIGIL_AUTH=off the warning repeats every 10 minutes', async (t) => {
  const captured = captureLog('auth-off-timer');
  const intervals: { run: () => void; ms: number }[] = [];
  const timers = {
    setInterval: (run: () => void, ms: number) => intervals.push({ run, ms }),
    clearInterval: () => {},
  };
  const config = loadConfig({ VIGIL_AUTH: 'off', VIGIL_KEY_SECRET: 'x'.repeat(32) });
  // Off, the pool is never asked for keys.
  const auth = await startAuthentication(config, {} as StoragePool, captured.log, timers);
  t.equal(auth.store, null);
  const warnings = () => captured.lines.filter((l) => l.includes('VIGIL_AUTH=off')).length;
  t.equal(warnings(), 1);
  t.same(
    intervals.map((i) => i.ms),
    [AUTH_OFF_WARNING_MS],
  );
  intervals[0]?.run();
  intervals[0]?.run();
  t.equal(warnings(), 3, 'once more at each interval');
  await auth.stop();
});
