/** @module The storage pool's ingest operation: the hot path (workers/storage/ingest.ts). */
import type { NewEvent } from '../../domain/event.ts';
import type { InsertOutcome } from '../../domain/idempotency.ts';
import type { DbFailure, Result } from './result.ts';

export interface IngestHandlers {
  /**
   * Group commit: one statement for the whole batch; outcomes in input order (plain ids unless
   * an event carries an idempotency key).
   */
  insertEvents(input: {
    readonly events: readonly NewEvent[];
    /** Send the metrics actor DetailedMetricEvents (an ACTIVE PATTERN rule reads them). */
    readonly detail?: boolean;
  }): Promise<Result<readonly InsertOutcome[], DbFailure>>;
}
