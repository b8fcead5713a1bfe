/**
 * @module Cluster mode's start (main thread): resolves who this instance is, starts the cluster
 * thread (workers/cluster.worker.ts), waits for its registration (the incarnation), and hands the
 * service what it needs: the storage workers' cluster data, the ClusterView as it changes, and
 * stop(). `startCluster` answers null when NATS_URL is unset: then no NATS code runs at all.
 */
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { ClusterIdentity } from '../nats/identity.ts';
import type { Config } from '../config.ts';
import type { ClusterView } from '../domain/cluster/cluster-view.ts';
import type { NatsLag } from '../domain/cluster/nats-lag.ts';
import type { Logger } from '../log.ts';
import type {
  ClusterCommand,
  ClusterNotice,
  ClusterWorkerData,
  StorageClusterData,
} from '../protocol/cluster.ts';
import { workerEntry, workerExecArgv } from './worker-entry.ts';

/** Registration may wait out a previous process of the same id (kill -9, restarted at once). */
const START_DEADLINE_MS = 30_000;
const STOP_DEADLINE_MS = 10_000;

export interface RunningCluster {
  readonly instanceId: string;
  readonly cluster: string;
  /** For the storage workers' workerData. */
  readonly storage: StorageClusterData;
  /** Called with the first view at once, then with each change. */
  onView(listener: (view: ClusterView) => void): void;
  /** The cluster thread's last NatsLag (zeros until its first, a second after the start). */
  natsLag(): NatsLag;
  /** After the storage pool closed: the last publishes land, then the thread ends. */
  stop(): Promise<void>;
}

export async function startCluster(
  config: Config,
  databaseUrl: string,
  identity: ClusterIdentity | null,
  metricsChannel: string,
  log: Logger,
): Promise<RunningCluster | null> {
  if (config.NATS_URL === undefined || identity === null) return null;
  const { instanceId, cluster } = identity;
  const batchCounter = new SharedArrayBuffer(4);
  const channel = `vigil-cluster-${randomUUID()}`;
  const data: ClusterWorkerData = {
    natsUrl: config.NATS_URL,
    cluster,
    instanceId,
    databaseUrl,
    schema: config.DATABASE_SCHEMA,
    queryTimeoutMs: config.DB_QUERY_TIMEOUT_MS,
    logLevel: config.LOG_LEVEL,
    streamMaxBytes: config.NATS_STREAM_MAX_BYTES,
    metricsChannel,
    channel,
  };
  const worker = new Worker(workerEntry('cluster'), {
    workerData: data,
    execArgv: workerExecArgv(),
  });
  let latest: ClusterView = { instances: [instanceId], complete: false };
  const listeners: ((view: ClusterView) => void)[] = [];
  let lag: NatsLag = {
    publishLagSeconds: 0,
    publishPendingBatches: 0,
    consumeLagSeconds: 0,
    consumePendingMessages: 0,
  };
  let stopped: (() => void) | null = null;
  let exited = false;
  const incarnation = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('the cluster thread did not register in time')),
      START_DEADLINE_MS,
    );
    worker.on('message', (notice: ClusterNotice) => {
      switch (notice.type) {
        case 'ready':
          clearTimeout(timer);
          resolve(notice.incarnation);
          return;
        case 'failed':
          clearTimeout(timer);
          reject(new Error(notice.message));
          return;
        case 'view':
          latest = notice.view;
          for (const listener of listeners) {
            try {
              listener(latest);
            } catch (error) {
              log.error({ err: error }, 'a listener of the cluster view failed');
            }
          }
          return;
        case 'nats-lag':
          lag = notice.lag;
          return;
        case 'stopped':
          stopped?.();
      }
    });
    worker.on('error', (error) => {
      clearTimeout(timer);
      log.error({ err: error }, 'the cluster thread failed');
      reject(error);
    });
    worker.on('exit', (code) => {
      exited = true;
      if (stopped !== null) {
        stopped();
        return;
      }
      // Peers' batches stop arriving and this instance's wait in the outbox for their relays.
      log.error({ code }, 'the cluster thread exited: the metrics count this instance only');
      latest = { instances: [instanceId], complete: false };
      for (const listener of listeners) listener(latest);
    });
  }).catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });
  log.info({ instanceId, cluster, incarnation }, 'cluster mode: this instance joined');
  return {
    instanceId,
    cluster,
    storage: { instanceId, incarnation, batchCounter, channel },
    onView(listener) {
      listeners.push(listener);
      listener(latest);
    },
    natsLag: () => lag,
    async stop() {
      if (exited) return;
      const done = new Promise<void>((resolve) => (stopped = resolve));
      worker.postMessage({ type: 'stop' } satisfies ClusterCommand);
      const timer = setTimeout(() => void worker.terminate(), STOP_DEADLINE_MS);
      await done;
      clearTimeout(timer);
      await worker.terminate();
    },
  };
}
