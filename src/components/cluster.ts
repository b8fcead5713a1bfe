/** @module The cluster part (NATS_URL only): the cluster thread and this instance's view of the others. */
import { startCluster, type RunningCluster } from '../actors/cluster-link.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import type { ClusterIdentity } from '../nats/identity.ts';
import type { MetricsPart } from './metrics.ts';
import type { StopStack } from './stop-stack.ts';

/** Null alone (no NATS_URL): nothing below changes then. */
export async function startClusterPart(
  config: Config,
  databaseUrl: string,
  identity: ClusterIdentity | null,
  metrics: MetricsPart,
  log: Logger,
  stack: StopStack,
): Promise<RunningCluster | null> {
  const cluster = await startCluster(config, databaseUrl, identity, metrics.channel, log);
  if (cluster === null) return null;
  // After the storage pool on shutdown: the last committed batches are published (or left to the relay).
  stack.push('cluster', () => cluster.stop());
  cluster.onView((view) => {
    metrics.actor.clusterView(view).catch(() => undefined); // a restarting actor gets it again
    // Rules on counts hold (DEGRADED) while a live instance's batches are missing.
    metrics.actor.setViewComplete(view.complete);
  });
  return cluster;
}
