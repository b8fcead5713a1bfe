/** @module The storage pool's ingest operation: the hot path (workers/storage/ingest.ts). */
import type { NewEvent } from '../../domain/event.ts';
import type { InsertOutcome } from '../../domain/idempotency.ts';
import type { DbFailure, Result } from './result.ts';

/**
 * When the storage worker's part of a batch happened, as epoch ms (epochNow in
 * src/telemetry/stage-histograms.ts), for the ingest stage timings (INGEST_STAGE_TIMINGS).
 */
export interface StorageStamps {
  /** The handler began (the batch reached the worker). */
  readonly startedAt: number;
  /** The statement answered, inside its transaction. */
  readonly statementAt: number;
  /** COMMIT answered. */
  readonly committedAt: number;
}

/** A batch's outcomes, with the worker's stamps when they were asked for and the batch stored. */
export type InsertResult = Result<readonly InsertOutcome[], DbFailure> & {
  readonly stamps?: StorageStamps;
};

export interface IngestHandlers {
  /**
   * Group commit: one statement for the whole batch; outcomes in input order (plain ids unless
   * an event carries an idempotency key).
   */
  insertEvents(input: {
    readonly events: readonly NewEvent[];
    /** Send the metrics actor DetailedMetricEvents (an ACTIVE PATTERN rule reads them). */
    readonly detail?: boolean;
    /**
     * Time the statement and its COMMIT apart (stage timings on): the batch then runs in an
     * explicit transaction, so COMMIT is a round trip of its own. One instance only.
     */
    readonly stamped?: boolean;
  }): Promise<InsertResult>;
}
