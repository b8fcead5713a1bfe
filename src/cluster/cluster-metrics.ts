/**
 * @module Cluster mode's part of GET /metrics: the rule leader lease as this instance sees it, and
 * whether its metrics count every live instance. Registered only when the cluster runs, so a single
 * instance exports none of these (docs/prometheus.md).
 */
import type { RunningCluster } from '../actors/cluster-link.ts';
import type { ClusterView } from '../domain/cluster/cluster-view.ts';
import { gauge, type SelfMetricsRegistry } from '../instrumentation/prometheus/metric-source.ts';
import type { Leadership } from './leadership.ts';

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
