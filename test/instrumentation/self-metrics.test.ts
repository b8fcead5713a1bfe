// createSelfMetrics with its owners faked: a scrape still answers when the metrics actor does not
// (up 0, no event series), and what another part registers (the cluster's gauges) is exported
// from the next scrape on, under the same name rules.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import t from 'tap';
import { createIngestCounts } from '../../src/http/ingest-answers.ts';
import { NotificationCounts } from '../../src/notify/notification-counts.ts';
import { PlainHistogram } from '../../src/telemetry/plain-histogram.ts';
import {
  createSelfMetrics,
  type SelfMetricsDeps,
} from '../../src/instrumentation/prometheus/self-metrics.ts';
import type { ActorSelfMetrics } from '../../src/protocol/metrics-actor.ts';

function fakeDeps(actor: () => Promise<ActorSelfMetrics>): SelfMetricsDeps {
  let clock = 0;
  return {
    ingestCounts: createIngestCounts(),
    batcher: {
      stats: () => ({
        queuedEvents: 3,
        queuedBytes: 300,
        batchEvents: new PlainHistogram([1]),
        commitSeconds: new PlainHistogram([1]),
        failedBatches: 0,
      }),
    },
    queueLimits: { events: 10, bytes: 1000 },
    metrics: {
      selfMetrics: () => {
        clock += 250;
        return actor();
      },
      onSnapshot: () => undefined,
      onRestart: () => undefined,
    },
    now: () => clock,
    pool: { stats: () => ({ threads: 2, running: 1, queued: 0, completed: 7 }) },
    stomp: () => ({
      sessions: 0,
      subscriptions: 0,
      published: 0,
      delivered: 0,
      skipped: 0,
      closedSlow: 0,
      tailDropped: 0,
    }),
    notifications: new NotificationCounts(),
    notifyQueue: () => ({ inFlight: 0, queued: 0, dropped: 0 }),
    version: '9.9.9',
  };
}

const parse = async (text: Promise<string>) =>
  new Map(parsePrometheusTextFormat(await text).map((f) => [f.name, f]));

void t.test(
  'an actor that does not answer: up 0, no event series, the rest as usual',
  async (t) => {
    const self = createSelfMetrics(fakeDeps(() => Promise.reject(new Error('stopped'))));
    const families = await parse(self.text());
    t.same(families.get('vigil_metrics_actor_up')?.metrics, [{ value: '0' }]);
    t.same(families.get('vigil_metrics_actor_lag_seconds')?.metrics, [{ value: '0.25' }]);
    t.same(families.get('vigil_events_by_type_total')?.metrics, []);
    t.same(families.get('vigil_rule_evaluation_seconds')?.metrics, []);
    t.same(families.get('vigil_ingest_queue_events')?.metrics, [{ value: '3' }]);
    t.same(families.get('vigil_storage_tasks_completed_total')?.metrics, [{ value: '7' }]);
  },
);

void t.test('what another part registers is exported, named vigil_ and once', async (t) => {
  const actor: ActorSelfMetrics = {
    rules: 2,
    evaluationSeconds: new PlainHistogram([0.1]).read(),
    counts: {
      since: 0,
      events: 1,
      byType: { a: 1 },
      bySource: { s: 1 },
      bySeverity: { INFO: 1, WARNING: 0, ERROR: 0, CRITICAL: 0 },
    },
    caps: {
      eventTypes: { cap: 1000, used: 1000, watched: 1, overflowed: true, fills: 2 },
      sources: { cap: 1000, used: 1, watched: 0, overflowed: false, fills: 0 },
      users: { cap: 100_000, used: 1, overflowed: false, fills: 0 },
    },
    checkpoints: { written: 3, failed: 1, encodeSeconds: 0.5, lastBytes: 9000 },
  };
  const self = createSelfMetrics(fakeDeps(() => Promise.resolve(actor)));
  let epoch = 4;
  self.register({ name: 'vigil_lease_epoch', help: 'Epoch', kind: 'gauge', read: () => epoch });
  epoch = 5;
  const families = await parse(self.text());
  t.same(families.get('vigil_lease_epoch')?.metrics, [{ value: '5' }]);
  t.same(families.get('vigil_rules_active')?.metrics, [{ value: '2' }]);
  t.same(
    [
      'vigil_checkpoints_total',
      'vigil_checkpoint_failures_total',
      'vigil_checkpoint_seconds_total',
    ].map((name) => families.get(name)?.metrics),
    [[{ value: '3' }], [{ value: '1' }], [{ value: '0.5' }]],
    "the actor's checkpoints",
  );
  t.same(families.get('vigil_checkpoint_bytes')?.metrics, [{ value: '9000' }]);
  t.same(families.get('vigil_events_by_type_total')?.metrics, [
    { labels: { event_type: 'a' }, value: '1' },
  ]);
  t.same(families.get('vigil_metrics_cap_fills_total')?.metrics, [
    { labels: { cap: 'eventTypes' }, value: '2' },
    { labels: { cap: 'sources' }, value: '0' },
    { labels: { cap: 'users' }, value: '0' },
  ]);
  t.throws(() => self.register({ name: 'lease_epoch', help: 'x', kind: 'gauge', read: () => 0 }));
  t.throws(() =>
    self.register({ name: 'vigil_stomp_sessions', help: 'x', kind: 'gauge', read: () => 0 }),
  );
});
