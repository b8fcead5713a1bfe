// Metrics survive a restart (issue 33): under ingest the service is stopped with SIGTERM, or
// killed with kill -9, and restarted on the same data; GET /api/v1/metrics then counts exactly
// what the table holds, as a run without the restart would (checkpoint + replay after its mark).
import t from 'tap';
import { testDatabaseUrl } from '../support/database.ts';
import {
  decidedTopUsers,
  runMetricsRestart,
  runBadCheckpointRestart,
  runResetRestart,
  type RestartFault,
} from '../support/reliability/metrics-restart.ts';

for (const fault of ['SIGTERM', 'kill -9'] as const satisfies readonly RestartFault[]) {
  void t.test(`${fault} under ingest: the metrics count every stored event once`, async (t) => {
    const result = await runMetricsRestart({
      databaseUrl: testDatabaseUrl(),
      fault,
      // 1,000 events/s for 4 s, the fault after 2.5 s (checkpoints every second).
      events: 4000,
      connections: 4,
      requestsPerSecond: 200,
      faultAtAcked: 2500,
      withRule: fault === 'kill -9',
      env: { RULE_EVALUATION_MS: '200' },
    });
    t.comment(
      `acked ${result.acked} (${result.ackedBeforeFault} before the ${fault}), ` +
        `restored ${JSON.stringify(result.restoredFrom)}`,
    );
    t.ok(result.ackedBeforeFault >= 2500, 'the fault came under ingest');
    t.ok(result.acked > result.ackedBeforeFault, 'ingestion went on after the restart');
    t.ok(result.restoredFrom?.checkpointAt, 'the restart loaded a checkpoint');
    t.equal(result.restoredFrom?.rebuilt, undefined, 'not rebuilt');
    const { seen, expected } = result;
    t.equal(seen.totalEvents, expected.totalEvents, 'total events');
    t.same(seen.eventsByType, expected.eventsByType, 'by type');
    t.same(seen.eventsBySeverity, expected.eventsBySeverity, 'by severity');
    t.equal(seen.totalErrors, expected.totalErrors, 'errors');
    t.same(seen.errorsByType, expected.errorsByType, 'errors by type');
    t.equal(seen.lastHourEvents, expected.lastHourEvents, 'the last hour');
    t.equal(seen.uniqueUsers, expected.uniqueUsers, 'unique users (below the cap: exact)');
    t.same(decidedTopUsers(seen, expected), expected.topUsers, 'top users');
    if (result.rule !== null) {
      t.same(
        result.rule,
        { state: 'FIRING', alerts: 1, firingAlerts: 1 },
        'the rule FIRING before the kill is FIRING after it, with its one incident',
      );
    }
  });
}

void t.test('a reset survives kill -9: only the events after it are counted', async (t) => {
  const { beforeFault, afterRestart } = await runResetRestart(testDatabaseUrl());
  t.equal(beforeFault.summary.totalEvents, 30, 'before the kill: the 30 after the reset');
  t.match(afterRestart.restoredFrom, { replayedEvents: 30 }, 'the checkpoint of the reset');
  t.ok(afterRestart.restoredFrom?.checkpointAt, 'a checkpoint was loaded');
  t.equal(afterRestart.summary.totalEvents, 30, 'after the restart: still the 30');
  t.same(afterRestart.eventsByType, { 'after.reset': 30 });
  t.equal(afterRestart.summary.uniqueUsers, 3);
});

void t.test('a checkpoint of an unknown format: logged, the last hour rebuilt', async (t) => {
  // Garbage and cut records are refused the same way (test/domain/metrics/checkpoint).
  const future = Buffer.from('VGMC\u0000\u0000\u0000\u0063rest', 'latin1');
  const metrics = await runBadCheckpointRestart(testDatabaseUrl(), future);
  t.match(metrics.restoredFrom, {
    checkpointAt: null,
    rebuilt: { reason: /unknown checkpoint format 99/ },
  });
  t.equal(metrics.summary.totalEvents, 40, 'the stored events counted again, never a refusal');
});
