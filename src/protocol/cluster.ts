/**
 * @module Messages of cluster mode (NATS_URL set) between threads. Storage workers tell the
 * cluster thread about each batch they wrote (on a BroadcastChannel), and the cluster thread
 * tells the front thread its ClusterView. Plain data only: everything here is cloned across threads.
 */
import type { ClusterView } from '../domain/cluster/cluster-view.ts';
import type { NatsLag } from '../domain/cluster/nats-lag.ts';

/** What a storage worker needs to number its batches and write their outbox rows. */
export interface StorageClusterData {
  readonly instanceId: string;
  readonly incarnation: number;
  /**
   * One Int32 shared by the storage workers: the last batch number allocated in this incarnation
   * (Atomics.add; numbers have no hole, failed batches included).
   */
  readonly batchCounter: SharedArrayBuffer;
  /** The BroadcastChannel on which BatchNotices go to the cluster thread. */
  readonly channel: string;
}

/** Storage worker -> cluster thread, after a batch's transaction ended. */
export type BatchNotice =
  /** Committed with its outbox row: publish `payload` as `seq`. */
  | { readonly type: 'batch-committed'; readonly seq: number; readonly payload: Uint8Array }
  /**
   * The insert failed: most likely nothing was committed, but a connection lost during COMMIT
   * leaves it in doubt; the cluster thread looks for the outbox row before it calls it empty.
   */
  | { readonly type: 'batch-failed'; readonly seq: number };

export interface ClusterWorkerData {
  readonly natsUrl: string;
  readonly cluster: string;
  readonly instanceId: string;
  readonly databaseUrl: string;
  readonly schema: string;
  readonly queryTimeoutMs: number;
  readonly logLevel: string;
  readonly streamMaxBytes: number;
  /** The metrics actor's BroadcastChannel: peers' batches go there as events-stored. */
  readonly metricsChannel: string;
  /** The BroadcastChannel on which the storage workers' BatchNotices arrive. */
  readonly channel: string;
}

/** Cluster thread -> front. */
export type ClusterNotice =
  /** Registered in PostgreSQL: this start's incarnation (the storage workers number with it). */
  | { readonly type: 'ready'; readonly incarnation: number }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'view'; readonly view: ClusterView }
  | { readonly type: 'nats-lag'; readonly lag: NatsLag }
  | { readonly type: 'stopped' };

/** Front -> cluster thread. */
export type ClusterCommand = { readonly type: 'stop' };
