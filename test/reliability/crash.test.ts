// Crash safety against the run's PostgreSQL: producers post at full speed, the service (a child
// process) is killed with SIGKILL halfway, restarted, and every 202 must be stored exactly once.
import t from 'tap';
import { runCrash } from '../support/reliability/crash.ts';
import { brokenPromises } from '../support/reliability/ingest-load.ts';
import { testDatabaseUrl } from '../support/database.ts';

void t.test('kill -9 mid-ingest, restart: no acknowledged event lost or duplicated', async (t) => {
  const result = await runCrash({
    databaseUrl: testDatabaseUrl(),
    kind: 'service',
    events: 4000,
    connections: 8,
    killAtAcked: 2000,
  });
  t.comment(
    `acked ${result.check.acked} (${result.ackedBeforeKill} before the kill), stored ${result.check.rows}, ` +
      `in doubt ${result.check.inDoubt} (stored ${result.check.inDoubtStored}), down ${result.downMs} ms`,
  );
  t.same(brokenPromises(result.check), [], 'every promise kept');
  t.ok(result.ackedBeforeKill >= 2000, 'killed with events acknowledged');
  t.ok(result.check.acked > result.ackedBeforeKill, 'ingestion went on after the restart');
  t.equal(
    result.check.acked + result.check.inDoubt + countErrors(result.counts),
    4000,
    'every event sent once',
  );
  t.equal(result.finalExit.code, 0, 'the restarted service drains and exits 0');
});

const countErrors = (counts: ReadonlyMap<string, number>): number =>
  [...counts]
    .filter(([k]) => k !== '202' && !k.startsWith('in-doubt'))
    .reduce((s, [, v]) => s + v, 0);
