/**
 * @module GET /metrics: the metrics actor's numbers. One `self-metrics` command per scrape brings
 * them as plain data (the evaluation-tick histogram, the event counts since start or reset by
 * type, source and severity); the time it takes to answer is the actor's lag. Events are never
 * counted a second time: the counts are the aggregator's own, under the same caps and `(other)`.
 */
import type { MetricsActor } from '../../actors/metrics-actor-client.ts';
import type { ActorSelfMetrics } from '../../protocol/metrics-actor.ts';
import type { Exposition } from './exposition.ts';
import { CAP_NAMES } from '../../domain/metrics/state/cap-usage.ts';
import { counter, gauge, type MetricSource, type Sample } from './metric-source.ts';

export interface ActorMetricsDeps {
  readonly metrics: Pick<MetricsActor, 'selfMetrics' | 'onSnapshot' | 'onRestart'>;
  /** The clock, ms (monotonic is enough: only differences are used). */
  readonly now: () => number;
}

/** What one scrape learnt from the actor; `reply` null: it did not answer (stopped, restarting). */
interface ActorScrape {
  readonly reply: ActorSelfMetrics | null;
  readonly lagSeconds: number;
}

const counted = (label: string, counts: Readonly<Record<string, number>>): Sample[] =>
  Object.entries(counts).map(([key, value]) => ({ labels: { [label]: key }, value }));

/**
 * Adds the actor's metrics; returns what a scrape must call first (it asks the actor, and the
 * sources then read its answer in the same turn).
 */
export function addActorMetrics(
  exposition: Exposition,
  deps: ActorMetricsDeps,
): () => Promise<void> {
  let scrape: ActorScrape = { reply: null, lagSeconds: 0 };
  let restarts = 0;
  let lastSnapshotAt: number | null = null;
  deps.metrics.onSnapshot(() => (lastSnapshotAt = deps.now()));
  deps.metrics.onRestart(() => restarts++);

  const reply = (): ActorSelfMetrics | null => scrape.reply;
  const sources: MetricSource[] = [
    gauge(
      'vigil_metrics_actor_up',
      'Whether the metrics actor answered this scrape (0: stopped or being restarted)',
      () => (reply() === null ? 0 : 1),
    ),
    gauge(
      'vigil_metrics_actor_lag_seconds',
      'How long the metrics actor took to answer this scrape: the committed batches and ' +
        'commands queued ahead of it',
      () => scrape.lagSeconds,
    ),
    counter(
      'vigil_metrics_actor_restarts_total',
      'Times the metrics actor died and was replaced (it then restores its last checkpoint)',
      () => restarts,
    ),
    gauge(
      'vigil_metrics_snapshot_age_seconds',
      'Age of the snapshot GET /api/v1/metrics serves (rebuilt every METRICS_REFRESH_MS)',
      () => (lastSnapshotAt === null ? 0 : (deps.now() - lastSnapshotAt) / 1000),
    ),
    counter(
      'vigil_checkpoints_total',
      "Metrics checkpoints written to PostgreSQL since the actor's start",
      () => reply()?.checkpoints?.written ?? 0,
    ),
    counter(
      'vigil_checkpoint_failures_total',
      'Metrics checkpoint writes that failed (the next period writes again)',
      () => reply()?.checkpoints?.failed ?? 0,
    ),
    counter(
      'vigil_checkpoint_seconds_total',
      "Time the metrics actor's thread spent taking and encoding its checkpoints",
      () => reply()?.checkpoints?.encodeSeconds ?? 0,
    ),
    gauge(
      'vigil_checkpoint_bytes',
      'Size of the last metrics checkpoint taken, bytes (deflated)',
      () => reply()?.checkpoints?.lastBytes ?? 0,
    ),
    gauge(
      'vigil_rules_active',
      'ACTIVE rules the metrics actor evaluates',
      () => reply()?.rules ?? 0,
    ),
  ];
  for (const source of sources) exposition.add(source);
  exposition.addHistogram({
    name: 'vigil_rule_evaluation_seconds',
    help: "Wall time of each evaluation tick of the ACTIVE rules, since the actor's start",
    read: () => reply()?.evaluationSeconds ?? null,
  });
  /** Events since start or reset by one key: the aggregator's own counts, caps and `(other)`. */
  const eventsBy = (
    label: string,
    what: string,
    counts: (actor: ActorSelfMetrics) => Readonly<Record<string, number>>,
  ): MetricSource => ({
    name: `vigil_events_by_${label === 'event_type' ? 'type' : label}_total`,
    help: `Events counted by the metrics since start or reset, by ${what}`,
    kind: 'counter',
    labelNames: [label],
    read: () => {
      const actor = reply();
      return actor === null ? [] : counted(label, counts(actor));
    },
  });
  exposition.add(
    eventsBy(
      'event_type',
      'eventType (past METRICS_MAX_EVENT_TYPES: (other))',
      (a) => a.counts.byType,
    ),
  );
  exposition.add(
    eventsBy('source', 'source (past METRICS_MAX_SOURCES: (other))', (a) => a.counts.bySource),
  );
  exposition.add(eventsBy('severity', 'severity', (a) => a.counts.bySeverity));
  exposition.add({
    name: 'vigil_metrics_cap_fills_total',
    help:
      'Times a metrics cap filled since start: new event types / sources no rule names then ' +
      'count under (other); past the user cap uniqueUsers is an estimate',
    kind: 'counter',
    labelNames: ['cap'],
    read: () => {
      const actor = reply();
      if (actor === null) return [];
      return CAP_NAMES.map((cap) => ({ labels: { cap }, value: actor.caps[cap].fills }));
    },
  });

  return async () => {
    const asked = deps.now();
    const answer = await deps.metrics.selfMetrics().catch(() => null);
    scrape = { reply: answer, lagSeconds: (deps.now() - asked) / 1000 };
  };
}
