/**
 * @module Cluster mode's part of GET /metrics: the rule leader lease as this instance sees it,
 * whether its metrics count every live instance, and how far behind JetStream it publishes and
 * consumes (the cluster thread's NatsLag). Registered only when the cluster runs, so a single
 * instance exports none of these (docs/prometheus.md).
 */
import type { RunningCluster } from '../../actors/cluster-link.ts';
import type { ClusterView } from '../../domain/cluster/cluster-view.ts';
import type { NatsLag } from '../../domain/cluster/nats-lag.ts';
import { gauge, type SelfMetricsRegistry } from './metric-source.ts';
import type { Leadership } from '../../cluster/leadership.ts';

/** The cluster thread's NatsLag, one gauge per field (docs/prometheus.md says when each rises). */
const NATS_LAG_GAUGES: readonly (readonly [string, string, keyof NatsLag])[] = [
  [
    'vigil_nats_publish_lag_seconds',
    'Age of the oldest own batch committed and not yet acknowledged by JetStream (0: none)',
    'publishLagSeconds',
  ],
  [
    'vigil_nats_publish_pending_batches',
    'Own batches committed and not yet acknowledged by JetStream (in flight or in the outbox)',
    'publishPendingBatches',
  ],
  [
    'vigil_nats_consume_lag_seconds',
    'Age of the last batch read from the stream while more were pending after it (0: caught up)',
    'consumeLagSeconds',
  ],
  [
    'vigil_nats_consume_pending_messages',
    'Messages of the batch stream not yet read by this instance, as of the last one read',
    'consumePendingMessages',
  ],
];

export function registerClusterMetrics(
  registry: SelfMetricsRegistry,
  cluster: RunningCluster,
  leadership: Leadership | null,
): void {
  let view: ClusterView | null = null;
  cluster.onView((latest) => {
    view = latest;
  });
  registry.register(
    gauge('vigil_cluster_instances', 'Instances whose batches these metrics count', () =>
      view === null ? 0 : view.instances.length,
    ),
  );
  registry.register(
    gauge('vigil_cluster_view_complete', '1 while every live instance is counted, else 0', () =>
      view?.complete === true ? 1 : 0,
    ),
  );
  for (const [name, help, field] of NATS_LAG_GAUGES)
    registry.register(gauge(name, help, () => cluster.natsLag()[field]));
  if (leadership === null) return;
  registry.register(
    gauge('vigil_lease_holder', '1 on the instance holding the rule leader lease, else 0', () =>
      leadership.status().epoch === null ? 0 : 1,
    ),
  );
  registry.register(
    gauge(
      'vigil_lease_epoch',
      'The fencing epoch this instance leads at (0: not leading)',
      () => leadership.status().epoch ?? 0,
    ),
  );
}
