/** @module The storage pool's upkeep: retention, pruning, and the start-up ping. */
import type { MaintenanceDone } from '../../domain/event-partitions.ts';
import type { DbFailure, Result } from './result.ts';

export interface MaintenanceHandlers {
  /** Deletes at most `limit` idempotency keys stored before `before` (epoch ms); answers how many. */
  pruneIdempotencyKeys(input: {
    readonly before: number;
    readonly limit: number;
  }): Promise<Result<number, DbFailure>>;
  /**
   * Retention (issue 23): creates the partitions of events due at `now` and drops those older than
   * `retentionDays` (null: keeps everything); event-partitions.ts plans which.
   */
  maintainEventPartitions(input: {
    readonly now: number;
    readonly retentionDays: number | null;
  }): Promise<Result<MaintenanceDone, DbFailure>>;
  /** Deletes at most `limit` count rows of time no longer kept; answers how many. */
  pruneEventCounts(input: { readonly limit: number }): Promise<Result<number, DbFailure>>;
  /**
   * Deletes at most `limit` RESOLVED alerts resolved before `before` (epoch ms), with the digests
   * no alert names any more; answers how many alerts.
   */
  pruneAlerts(input: {
    readonly before: number;
    readonly limit: number;
  }): Promise<Result<number, DbFailure>>;
  /** Answers once the worker's code is loaded and its database reachable (the pool's start). */
  ping(input: Record<string, never>): Promise<Result<true, DbFailure>>;
}
