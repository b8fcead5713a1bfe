// Crash safety with the service's own embedded PostgreSQL (no DATABASE_URL): after kill -9 of the
// service alone, the restart reuses the PostgreSQL still running on its data directory.
import t from 'tap';
import { runCrash } from '../support/reliability/crash.ts';
import { brokenPromises } from '../support/reliability/ingest-load.ts';

void t.test('kill -9 the service: the restart adopts the live embedded PostgreSQL', async (t) => {
  const result = await runCrash({
    databaseUrl: null,
    kind: 'service',
    events: 3000,
    connections: 8,
    killAtAcked: 1500,
  });
  t.comment(`acked ${result.check.acked}, stored ${result.check.rows}, down ${result.downMs} ms`);
  t.same(brokenPromises(result.check), [], 'every promise kept');
  t.equal(result.adopted, true, 'the restart reused the running PostgreSQL');
  t.ok(result.check.acked > result.ackedBeforeKill, 'ingestion went on after the restart');
  t.equal(result.finalExit.code, 0, 'exit 0 after SIGTERM');
});
