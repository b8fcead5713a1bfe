import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { defaultClusterName, instanceIdFile, resolveIdentity } from '../../src/nats/identity.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';

const log = createLogger('silent', 'test');
const DB = 'postgres://vigil:secret@db.example:5433/vigil';

t.test('NATS_URL without DATABASE_URL is refused, naming why', async (t) => {
  t.throws(() => loadConfig({ NATS_URL: 'nats://127.0.0.1:4222' }), ConfigError);
  t.equal(loadConfig({ NATS_URL: 'nats://n:4222', DATABASE_URL: DB }).NATS_URL, 'nats://n:4222');
  t.throws(() => loadConfig({ DATABASE_URL: DB, VIGIL_INSTANCE_ID: 'a.b' }), ConfigError);
});

t.test(
  'the default cluster name: per database and schema, never holding credentials',
  async (t) => {
    const name = defaultClusterName(DB, 'public');
    t.match(name, /^vigil_[0-9a-f]{12}$/);
    t.equal(defaultClusterName('postgres://other:pw@db.example:5433/vigil', 'public'), name);
    t.not(defaultClusterName(DB, 'staging'), name, 'another schema, another cluster');
    t.not(defaultClusterName('postgres://db.example:5433/other', 'public'), name);
  },
);

t.test('the instance id: as configured, else made once in the data directory', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'vigil-id-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const base = { NATS_URL: 'nats://n:4222', DATABASE_URL: DB, VIGIL_DATA_DIR: dir };
  const configured = await resolveIdentity(
    loadConfig({ ...base, VIGIL_INSTANCE_ID: 'edge-1', VIGIL_CLUSTER: 'prod' }),
    DB,
    log,
  );
  t.same(configured, { instanceId: 'edge-1', cluster: 'prod' });
  const first = await resolveIdentity(loadConfig(base), DB, log);
  t.match(first.instanceId, /^[A-Za-z0-9_-]+-[0-9a-f]{8}$/);
  t.equal((await readFile(instanceIdFile(dir), 'utf8')).trim(), first.instanceId, 'kept');
  const again = await resolveIdentity(loadConfig(base), DB, log);
  t.equal(again.instanceId, first.instanceId, 'the same after a restart');
});
