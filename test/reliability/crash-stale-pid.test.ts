// Crash safety when the embedded PostgreSQL dies too (kill -9 of the whole process group): the
// stale postmaster.pid it leaves must not stop the restart, not even when its pid now belongs to
// another live process (as after a container restart).
import t from 'tap';
import { runCrash, type CrashKind } from '../support/reliability/crash.ts';
import { brokenPromises } from '../support/reliability/ingest-load.ts';

for (const kind of ['service+postgres', 'service+postgres, pid reused'] as CrashKind[]) {
  void t.test(`kill -9 ${kind}: restart on the same data, nothing acknowledged lost`, async (t) => {
    const result = await runCrash({
      databaseUrl: null,
      kind,
      events: 1500,
      connections: 8,
      killAtAcked: 750,
    });
    t.comment(`acked ${result.check.acked}, stored ${result.check.rows}, down ${result.downMs} ms`);
    t.same(brokenPromises(result.check), [], 'every promise kept');
    t.equal(
      result.staleCleared,
      true,
      'the stale postmaster.pid was cleared and PostgreSQL started',
    );
    t.equal(result.adopted, false, 'nothing adopted');
    t.ok(result.check.acked > result.ackedBeforeKill, 'ingestion went on after the restart');
    t.equal(result.finalExit.code, 0, 'exit 0 after SIGTERM');
  });
}
