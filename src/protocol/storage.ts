/**
 * @module The storage pool's protocol: one named handler per operation, its input and its result.
 * Expected failures come back as data ({ ok: false, code }), never as thrown errors (STYLE 2).
 */
import type { Severity } from '../domain/event.ts';

export type Result<T, C extends string> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: C; readonly message: string };

/** The database failed or could not be reached; `message` is safe to show to a client. */
export type DbFailure = 'DB_FAILURE';

/** A validated event on its way to the table; times are epoch ms. */
export interface NewEvent {
  readonly eventType: string;
  readonly timestamp: number;
  readonly source: string;
  readonly userId: string | null;
  readonly sessionId: string | null;
  readonly severity: Severity;
  readonly tags: Readonly<Record<string, string>>;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly receivedAt: number;
}

/** An event as the API returns it (spec 2.1), already shaped by the storage worker. */
export interface EventRecord {
  readonly id: number;
  readonly eventId: string;
  readonly eventType: string;
  readonly timestamp: string;
  readonly source: string;
  readonly userId: string | null;
  readonly sessionId: string | null;
  readonly severity: Severity;
  readonly tags: Record<string, string>;
  readonly metadata: Record<string, unknown>;
  readonly receivedAt: string;
  readonly processingLatencyMs: number;
  readonly error: boolean;
}

export interface EventPage {
  readonly rows: readonly EventRecord[];
  readonly total: number;
}

export interface StorageHandlers {
  /** Group commit: one statement for the whole batch; ids in input order. */
  insertEvents(input: { readonly events: readonly NewEvent[] }): Promise<Result<readonly number[], DbFailure>>;
  listEvents(input: {
    readonly eventType: string | null;
    readonly page: number;
    readonly size: number;
  }): Promise<Result<EventPage, DbFailure>>;
  getEvent(input: { readonly id: number }): Promise<Result<EventRecord, DbFailure | 'NOT_FOUND'>>;
  ping(input: Record<string, never>): Promise<Result<true, DbFailure>>;
}

export type StorageOperation = keyof StorageHandlers;
export type StorageInput<K extends StorageOperation> = Parameters<StorageHandlers[K]>[0];
export type StorageOutput<K extends StorageOperation> = Awaited<ReturnType<StorageHandlers[K]>>;

/** What every storage worker receives in workerData. */
export interface StorageWorkerData {
  readonly databaseUrl: string;
  readonly schema: string;
  readonly connections: number;
  readonly queryTimeoutMs: number;
  readonly logLevel: string;
  /** Name of the BroadcastChannel on which committed events go to the metrics actor. */
  readonly metricsChannel: string;
}
