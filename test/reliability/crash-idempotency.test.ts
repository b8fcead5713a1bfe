// Idempotent ingest across a crash (issue 22), against the run's PostgreSQL: keyed events at full
// speed, the service (a child process) killed with SIGKILL halfway, restarted, then every request
// of the cut ingest retried with its key: each event stored exactly once, each acknowledged one
// answered with its first eventId again.
import t from 'tap';
import { testDatabaseUrl } from '../support/database.ts';
import { runIdempotentCrash } from '../support/reliability/crash-idempotency.ts';

const EVENTS = 3000;

for (const batchSize of [1, 10]) {
  void t.test(`kill -9 mid-ingest (${batchSize} per request), retry everything`, async (t) => {
    const result = await runIdempotentCrash({
      databaseUrl: testDatabaseUrl(),
      events: EVENTS,
      connections: 8,
      batchSize,
      killAtAcked: EVENTS / 3,
    });
    const counts = (report: typeof result.cut) => JSON.stringify(Object.fromEntries(report.counts));
    t.comment(`cut ingest: ${counts(result.cut)}; retry: ${counts(result.retried)}`);
    t.ok(result.ackedBeforeKill >= EVENTS / 3, 'killed with events acknowledged');
    t.ok(result.cut.acked < EVENTS, 'the kill cut the ingest short');
    t.equal(result.retried.acked, EVENTS, 'every retry acknowledged');
    const notOnce = [...Array(EVENTS).keys()].filter((seq) => result.rowsPerSeq.get(seq) !== 1);
    t.same(notOnce.slice(0, 10), [], 'each event stored exactly once');
    t.equal(result.rowsPerSeq.size, EVENTS, 'no other rows');
    t.equal(result.keys, EVENTS, 'one key each');
    t.same(
      result.changedAcks.slice(0, 10),
      [],
      'a retry of an acknowledged event answers its eventId',
    );
    t.equal(result.finalExit.code, 0, 'the restarted service drains and exits 0');
  });
}
