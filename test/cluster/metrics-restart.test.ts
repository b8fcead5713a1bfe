// Cluster mode keeps its metrics across a restart too (issue 33): two instances ingest, one is
// stopped (SIGTERM) or killed (kill -9) and started again as itself. It restores its checkpoint
// (its instance id's), replays the stored events after the mark, and skips what the batch stream
// brings again (peers' batches carry their events' ids). Once every event has settled, both
// instances count exactly what PostgreSQL holds, as a run without the restart would; the
// error-rate rule that was FIRING is FIRING after it, with its one incident.
import t from 'tap';
import { startIngestLoad } from '../support/reliability/ingest-load.ts';
import {
  alertsOf,
  api,
  decidedTopUsers,
  expectedFigures,
  figuresOf,
  metricsCounting,
  type ExactFigures,
  type MetricsSnapshotBody,
} from '../support/reliability/metrics-restart.ts';
import { stopServer } from '../support/service-process.ts';
import { clusterTestFile, waitUntil } from '../support/vigil-cluster.ts';

/** The figures seen, top users compared where the expected ones decide them. */
const exact = (seen: ExactFigures, expected: ExactFigures): ExactFigures => ({
  ...seen,
  topUsers: decidedTopUsers(seen, expected),
});

await clusterTestFile(
  2,
  async (cluster) => {
    const { instances } = cluster;
    const first = instances[0];
    if (first === undefined) throw new Error('no instance');
    const rule = (await api(first, '/api/v1/rules', {
      name: 'errors over 5 %',
      ruleType: 'THRESHOLD',
      ruleConfig: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 5, windowMinutes: 5 },
      severity: 'HIGH',
    })) as { id: number };

    for (const fault of ['SIGTERM', 'kill -9'] as const) {
      await t.test(
        `${fault} of an instance under ingest: both count every event once`,
        async (t) => {
          const tag = fault === 'SIGTERM' ? 'term' : 'kill';
          // Both instances take events; the one restarted keeps being sent to (refused ones resent).
          const loads = instances.map((proc, i) =>
            startIngestLoad({
              url: proc.url,
              connections: 2,
              total: 3_000,
              tag: `${tag}-${i}`,
              batchSize: 5,
              requestsPerSecond: 100,
              retryRefused: true,
              timeoutMs: 15_000,
            }),
          );
          while (loads[1]!.acked() < 1_200) await new Promise((resolve) => setTimeout(resolve, 5));
          await waitUntil('the rule fires', async () =>
            (await alertsOf(first, rule.id)).length > 0 ? null : 'no alert yet',
          );
          const victim = instances[1]!;
          if (fault === 'SIGTERM') await stopServer(victim);
          else {
            victim.signal('SIGKILL');
            await victim.exited;
          }
          const restarted = await cluster.restart(1);
          await Promise.all(loads.map((load) => load.done));
          const expected = await expectedFigures(cluster.db.sql, 10);
          const snapshots: MetricsSnapshotBody[] = [];
          for (const proc of instances)
            snapshots.push(await metricsCounting(proc, expected.totalEvents, 60_000));
          const restoredFrom = snapshots[1]!.restoredFrom;
          t.comment(`stored ${expected.totalEvents}; restored ${JSON.stringify(restoredFrom)}`);
          t.ok(restoredFrom?.checkpointAt, 'the restarted instance loaded its checkpoint');
          t.equal(restoredFrom?.rebuilt, undefined, 'not rebuilt');
          for (const [i, snapshot] of snapshots.entries()) {
            const seen = figuresOf(snapshot);
            t.same(exact(seen, expected), expected, `instance ${i}: exact`);
          }
          const alerts = await alertsOf(restarted, rule.id);
          t.same(
            { alerts: alerts.length, firing: alerts.filter((a) => a.state === 'FIRING').length },
            { alerts: 1, firing: 1 },
            'one incident, still FIRING: no duplicate',
          );
        },
      );
    }
  },
  { METRICS_CHECKPOINT_SECONDS: '1', RULE_EVALUATION_MS: '200' },
);
