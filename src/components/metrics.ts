/** @module The metrics part: the metrics actor thread (aggregator, rule evaluator, checkpoints). */
import { randomUUID } from 'node:crypto';
import {
  startMetricsActor,
  type MetricsActor,
  type RestartTimers,
} from '../actors/metrics-actor-client.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import type { ClusterIdentity } from '../nats/identity.ts';
import type { StopStack } from './stop-stack.ts';

export interface MetricsPart {
  readonly actor: MetricsActor;
  /** The BroadcastChannel the storage workers post committed events on. */
  readonly channel: string;
  /**
   * Stops the actor, once: the alerting part calls it at its place in the shutdown (evaluation
   * ends before the last alerts are stored) and the storage part before its pool closes.
   */
  readonly stop: () => Promise<void>;
}

/** Started before the storage pool: the actor listens before any worker posts a batch. */
export async function startMetrics(
  config: Config,
  databaseUrl: string,
  /** Cluster mode's identity (its instance id owns the checkpoint); null alone. */
  identity: ClusterIdentity | null,
  restartTimers: RestartTimers | undefined,
  log: Logger,
  stack: StopStack,
): Promise<MetricsPart> {
  const channel = `vigil-metrics-${randomUUID()}`;
  const actor = await startMetricsActor(
    {
      metricsChannel: channel,
      // In a cluster, only once this instance holds the rule leader lease (startLeadership).
      evaluating: config.NATS_URL === undefined,
      refreshMs: config.METRICS_REFRESH_MS,
      evaluationMs: config.RULE_EVALUATION_MS,
      evaluationCpuStats: config.EVALUATION_CPU_STATS,
      logLevel: config.LOG_LEVEL,
      maxEventTypes: config.METRICS_MAX_EVENT_TYPES,
      maxSources: config.METRICS_MAX_SOURCES,
      maxTrackedUsers: config.METRICS_MAX_TRACKED_USERS,
      checkpoint: {
        databaseUrl,
        schema: config.DATABASE_SCHEMA,
        owner: identity?.instanceId ?? 'single',
        intervalMs: config.METRICS_CHECKPOINT_SECONDS * 1000,
        rebuildWithoutCheckpoint: identity === null,
      },
    },
    log,
    { timers: restartTimers },
  );
  let stopped: Promise<void> | null = null;
  const stop = (): Promise<void> => (stopped ??= actor.stop());
  // Only does something when start-up fails before the parts that stop the actor are up.
  stack.push('metrics actor', stop);
  return { actor, channel, stop };
}
