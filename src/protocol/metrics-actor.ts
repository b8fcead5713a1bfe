/**
 * @module Messages to and from the metrics actor thread. Plain data only (epoch ms, no Date,
 * no class instances): everything here crosses a thread boundary by structured clone.
 */
import type { ClusterView } from '../domain/cluster/cluster-view.ts';
import type { MetricEvent } from '../domain/event.ts';
import type { MetricsHistory } from '../domain/metrics/snapshot/snapshot.ts';
import type { KeyLookup, NewestEvents } from '../domain/metrics/state/last-event-times.ts';
import type { AlertTransition, RulePending } from '../domain/rules/alerts/alert.ts';
import type { ActiveRule } from '../domain/rules/rule.ts';
import type { RuleRuntimeStatus } from '../domain/rules/rule-engine.ts';
import type {
  BackfillAnswer,
  BackfillRequest,
} from '../domain/rules/kinds/anomaly/anomaly-rules.ts';
import type { RuleTestInput, RuleTestResult } from '../domain/rules/rule-test.ts';
import type { ActorHeap } from '../telemetry/thread-heap.ts';
import type { TickSummary } from '../telemetry/tick-stats.ts';
import type { HistogramCounts } from '../telemetry/plain-histogram.ts';
import type { CountsSinceStart } from '../domain/metrics/snapshot/counts-since-start.ts';
import type { MetricsCapsUsage } from '../domain/metrics/state/cap-usage.ts';

/** Storage workers -> metrics actor, on the BroadcastChannel named in their workerData. */
export type MetricsChannelMessage = {
  readonly type: 'events-stored';
  /** DetailedMetricEvent while a PATTERN rule is ACTIVE (the batch's flag said so). */
  readonly events: readonly MetricEvent[];
  /**
   * The stored id of each event, in the same order (the checkpoint's high-water mark, issue 33);
   * absent where they are not known (a peer's batch from a version whose payload had none).
   */
  readonly ids?: readonly number[];
};

/** Front -> actor. Each request carries an id that its reply repeats. */
export type MetricsCommand =
  | { readonly type: 'reset'; readonly requestId: number }
  | { readonly type: 'test-rule'; readonly requestId: number; readonly input: RuleTestInput }
  /**
   * The complete set of ACTIVE rules, sent at start, after an actor restart and after a failed
   * update; `orphans`: the ids of rules not ACTIVE with an open incident, to be resolved.
   * `lead`: this instance has become the rule leader: forget every rule's lifecycle and
   * throttling first, take them from the stored alerts in `rules` (its predecessor decided
   * since), and evaluate from now on (set-evaluating true, in the same step: no tick between).
   */
  | {
      readonly type: 'set-rules';
      readonly requestId: number;
      readonly rules: readonly ActiveRule[];
      readonly orphans: readonly number[];
      readonly lead: boolean;
    }
  /**
   * Cluster mode: evaluate the rules (this instance holds the leader lease) or not (it does not,
   * or no longer: a tick then decides nothing and no transition is posted). Alone: always true.
   */
  | { readonly type: 'set-evaluating'; readonly requestId: number; readonly evaluating: boolean }
  /**
   * Cluster mode: whether the metrics hold every live instance's events (ClusterView.complete);
   * while not, rules that count events are held DEGRADED.
   */
  | { readonly type: 'set-view-complete'; readonly requestId: number; readonly complete: boolean }
  /** The rules of `ids` that are ACTIVE now (a missing id was paused, archived or deleted). */
  | {
      readonly type: 'put-rules';
      readonly requestId: number;
      readonly ids: readonly number[];
      readonly rules: readonly ActiveRule[];
    }
  /** The newest stored events of the keys a `watching` notice asked for. */
  | { readonly type: 'seed-last-events'; readonly requestId: number; readonly newest: NewestEvents }
  /** The runtime status of a rule (GET /rules/{id}/status); null when it is not ACTIVE here. */
  | { readonly type: 'rule-status'; readonly requestId: number; readonly ruleId: number }
  /** The stored history an `anomaly-backfill` notice asked for (values null: the read failed). */
  | { readonly type: 'seed-anomaly'; readonly requestId: number; readonly answer: BackfillAnswer }
  /** Over the last `last` ticks (1..600). */
  | { readonly type: 'evaluation-stats'; readonly requestId: number; readonly last: number }
  /** The last `minutes` (1..1440), minute by minute (the dashboard's charts after a reload). */
  | { readonly type: 'history'; readonly requestId: number; readonly minutes: number }
  /** The actor's own numbers for a GET /metrics scrape (Prometheus). */
  | { readonly type: 'self-metrics'; readonly requestId: number }
  /**
   * Cluster mode: which instances' batches these metrics count, and whether that is all of the
   * live ones; the snapshot carries it as `cluster` from then on.
   */
  | { readonly type: 'cluster-view'; readonly requestId: number; readonly view: ClusterView }
  | { readonly type: 'stop'; readonly requestId: number };

/** What each command answers with. */
export interface MetricsReplies {
  /** The snapshot right after the reset, so the front's copy never shows older counts. */
  readonly reset: SerialisedSnapshot;
  /** Spec 2.9, simulated against the live metrics with the evaluator's own code. */
  readonly 'test-rule': RuleTestResult;
  readonly 'set-rules': RuleSetReply;
  readonly 'put-rules': RuleSetReply;
  readonly 'set-evaluating': null;
  readonly 'set-view-complete': null;
  readonly 'rule-status': RuleRuntimeStatus | null;
  readonly 'evaluation-stats': EvaluationStats;
  readonly history: MetricsHistory;
  readonly 'self-metrics': ActorSelfMetrics;
  readonly 'seed-last-events': null;
  readonly 'seed-anomaly': null;
  readonly 'cluster-view': null;
  readonly stop: null;
}

/**
 * After a rule change: how many rules are ACTIVE, and whether committed events must now carry
 * what PATTERN rules read (the front passes it with each batch to the storage workers).
 */
export interface RuleSetReply {
  readonly rules: number;
  readonly eventDetail: boolean;
}

/**
 * The snapshot serialised once for every reader: its JSON text, and that text gzipped (in the
 * actor, so that clients accepting gzip cost the front thread a sixth of the bytes to write).
 */
export interface SerialisedSnapshot {
  readonly json: string;
  readonly gzip: Uint8Array;
}

/** Time the evaluator took per tick, over the last ticks (measured inside the actor). */
export interface EvaluationStats extends TickSummary {
  readonly rules: number;
  /** The metrics actor's V8 heap in use (its aggregator and rule state), after a full GC if gcRan. */
  readonly heap: ActorHeap;
}

/** Since the actor started (GET /metrics: vigil_checkpoint*). */
export interface CheckpointTotals {
  readonly written: number;
  readonly failed: number;
  /** Time the actor thread spent taking and encoding them (each write waits off-thread). */
  readonly encodeSeconds: number;
  /** The size of the last one taken, bytes (0: none yet). */
  readonly lastBytes: number;
}

/**
 * What the actor holds that a Prometheus scrape exports, as plain numbers read when asked: the
 * counting itself stays where it is (the aggregator, the tick timer), nothing is counted twice.
 */
export interface ActorSelfMetrics {
  /** ACTIVE rules being evaluated. */
  readonly rules: number;
  /** Every evaluation tick's wall time since the actor started, in seconds. */
  readonly evaluationSeconds: HistogramCounts;
  readonly counts: CountsSinceStart;
  /** How full each metrics cap is, and its fills since start (vigil_metrics_cap_fills_total). */
  readonly caps: MetricsCapsUsage;
  /** Its checkpoints since it started; null when it writes none. */
  readonly checkpoints: CheckpointTotals | null;
}

/** An unexpected error, rebuilt on the other side by name and message. */
export interface WireError {
  readonly name: string;
  readonly message: string;
}

/** Actor -> front. */
export type MetricsNotice =
  | { readonly type: 'ready' }
  /** The serialised snapshot, posted every METRICS_REFRESH_MS: GET /metrics and STOMP use it. */
  | { readonly type: 'snapshot'; readonly snapshot: SerialisedSnapshot }
  /**
   * Rules fired or resolved, in the order decided (those of one evaluation in one message: the
   * front stores them with one storage operation), then publishes them on /topic/alerts and
   * notifies those that fired. A rule that went PENDING (or became held by its suppression) is
   * among them as `pending`: published, never stored.
   */
  | { readonly type: 'alerts'; readonly transitions: readonly (AlertTransition | RulePending)[] }
  /**
   * Rules now read the silence of these keys (first time since the actor started, and each new
   * key after): the front reads their newest stored events and answers with seed-last-events,
   * so that the times survive an actor restart.
   */
  | { readonly type: 'watching'; readonly keys: KeyLookup }
  /**
   * ANOMALY series without history (a rule created, enabled or changed, or an actor restart): the
   * front reads their buckets from the stored events on the storage pool and answers each with
   * seed-anomaly; the evaluator's tick never waits, the series stay LEARNING meanwhile.
   */
  | { readonly type: 'anomaly-backfill'; readonly requests: readonly BackfillRequest[] }
  | {
      readonly type: 'reply';
      readonly requestId: number;
      readonly result:
        | { readonly ok: true; readonly value: MetricsReplies[MetricsCommand['type']] }
        | { readonly ok: false; readonly error: WireError };
    };

export interface MetricsActorData {
  readonly metricsChannel: string;
  /** Evaluate the rules from the start: alone, yes; in a cluster, not before the lease is held. */
  readonly evaluating: boolean;
  readonly refreshMs: number;
  readonly evaluationMs: number;
  /** Measure each evaluation tick's time on a CPU too (EVALUATION_CPU_STATS). */
  readonly evaluationCpuStats: boolean;
  readonly logLevel: string;
  readonly maxEventTypes: number;
  readonly maxSources: number;
  readonly maxTrackedUsers: number;
  /** Checkpoints of the metrics (issue 33); null: none, the metrics start from zero. */
  readonly checkpoint: MetricsCheckpointData | null;
}

export interface MetricsCheckpointData {
  readonly databaseUrl: string;
  readonly schema: string;
  /** Whose checkpoint: 'single' alone, the instance id in a cluster. */
  readonly owner: string;
  /** METRICS_CHECKPOINT_SECONDS in ms; 0: written only at stop and at a reset. */
  readonly intervalMs: number;
  /** Alone; in a cluster the batch stream counts again instead (MetricsCheckpointer.restore). */
  readonly rebuildWithoutCheckpoint: boolean;
}

export const assertNever = (value: never): never => {
  throw new Error(`Unhandled message ${JSON.stringify(value)}`);
};
