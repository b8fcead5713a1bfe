/**
 * @module The storage pool's protocol: one named operation per handler, its input and its result,
 * declared by area (one file each) and joined here, once. Expected failures come back as data
 * ({ ok: false, code }), never as thrown errors (STYLE 2). The records these carry are declared in
 * src/domain. The worker's table of handlers (workers/storage/handlers.ts) is checked against
 * StorageHandlerTable: every operation, with its exact input and result.
 */
import type { StorageClusterData } from '../cluster.ts';
import type { AlertHandlers } from './alerts.ts';
import type { ApiKeyHandlers } from './api-keys.ts';
import type { ClusterHandlers } from './cluster.ts';
import type { ContactPointHandlers } from './contact-points.ts';
import type { EventReadHandlers } from './events.ts';
import type { EventSearchHandlers } from '../event-search.ts';
import type { IngestHandlers, InsertResult, StorageStamps } from './ingest.ts';
import type { MaintenanceHandlers } from './maintenance.ts';
import type { RuleHandlers } from './rules.ts';
import type { SilenceHandlers } from './silences.ts';

export type { DbFailure, Result } from './result.ts';
export type {
  AlertHandlers,
  ApiKeyHandlers,
  ClusterHandlers,
  ContactPointHandlers,
  EventReadHandlers,
  IngestHandlers,
  InsertResult,
  MaintenanceHandlers,
  RuleHandlers,
  SilenceHandlers,
  StorageStamps,
};

/** Every operation of the storage pool. */
export interface StorageHandlers
  extends
    IngestHandlers,
    EventReadHandlers,
    MaintenanceHandlers,
    RuleHandlers,
    AlertHandlers,
    ApiKeyHandlers,
    ClusterHandlers,
    ContactPointHandlers,
    SilenceHandlers {}

export type StorageOperation = keyof StorageHandlers;
export type StorageInput<K extends StorageOperation> = Parameters<StorageHandlers[K]>[0];
export type StorageOutput<K extends StorageOperation> = Awaited<ReturnType<StorageHandlers[K]>>;

/**
 * The worker's handlers, as properties: unlike the methods above (whose parameters TypeScript
 * checks both ways), each handler must take exactly its operation's input.
 */
export type StorageHandlerTable = {
  readonly [K in StorageOperation]: (input: StorageInput<K>) => Promise<StorageOutput<K>>;
};

/** What the front thread hands the pool for one operation (the worker's default export runs it). */
export interface StorageTask<K extends StorageOperation = StorageOperation> {
  readonly op: K;
  readonly input: StorageInput<K>;
}

/** What every storage worker receives in workerData. */
export interface StorageWorkerData {
  readonly databaseUrl: string;
  readonly schema: string;
  readonly connections: number;
  readonly queryTimeoutMs: number;
  readonly logLevel: string;
  /** Name of the BroadcastChannel on which committed events go to the metrics actor. */
  readonly metricsChannel: string;
  /** Cluster mode (NATS_URL set): each batch gets a number and an outbox row. Absent: one instance. */
  readonly cluster?: StorageClusterData;
}

/**
 * The reads pool's handlers (workers/reads.worker.ts): the expensive reads a client can ask for,
 * on connections and a queue apart from ingest's (docs/security.md), with the same shapes.
 */
export type ReadHandlers = Pick<StorageHandlers, 'replayPattern' | 'listEvents'> &
  EventSearchHandlers;
export type ReadOperation = keyof ReadHandlers;

/** What every reads worker receives in workerData. */
export interface ReadsWorkerData extends Pick<
  StorageWorkerData,
  'databaseUrl' | 'schema' | 'connections' | 'queryTimeoutMs' | 'logLevel'
> {
  /** CPU-heavy reads (replays): the thread runs at the lowest priority, behind ingest. */
  readonly background: boolean;
}
