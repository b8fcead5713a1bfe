// Metrics survive kill -9 of the service AND its embedded PostgreSQL under ingest (issue 33): the
// restart starts PostgreSQL again (crash recovery), loads the last checkpoint committed before
// the kill and replays the stored events after its mark; the counts are those of the table.
import t from 'tap';
import { decidedTopUsers, runMetricsRestart } from '../support/reliability/metrics-restart.ts';

void t.test(
  'kill -9 of service + embedded PostgreSQL: every stored event counted once',
  async (t) => {
    const result = await runMetricsRestart({
      databaseUrl: null,
      fault: 'kill -9 with postgres',
      // 5,000 events/s (1,000 requests of 5) for 4 s, the kill after 2 s: the rate.
      events: 20_000,
      connections: 8,
      requestsPerSecond: 1000,
      faultAtAcked: 10_000,
    });
    t.comment(`acked ${result.acked}, restored ${JSON.stringify(result.restoredFrom)}`);
    t.ok(result.ackedBeforeFault >= 10_000, 'the fault came under ingest');
    t.ok(result.restoredFrom?.checkpointAt, 'the restart loaded a checkpoint');
    const { seen, expected } = result;
    t.equal(seen.totalEvents, expected.totalEvents, 'total events');
    t.same(seen.eventsByType, expected.eventsByType, 'by type');
    t.same(seen.eventsBySeverity, expected.eventsBySeverity, 'by severity');
    t.same(seen.errorsByType, expected.errorsByType, 'errors by type');
    t.equal(seen.uniqueUsers, expected.uniqueUsers, 'unique users');
    t.same(decidedTopUsers(seen, expected), expected.topUsers, 'top users');
  },
);
