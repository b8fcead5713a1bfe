/** @module The storage pool's operations for several instances: leases and the reset counter. */
import type { DbFailure, Result } from './result.ts';

export interface ClusterHandlers {
  /** Takes or renews a lease for ttlMs (database clock); the epoch held, or null: held by another. */
  takeLease(input: {
    readonly name: string;
    readonly holder: string;
    readonly ttlMs: number;
  }): Promise<Result<number | null, DbFailure>>;
  /** Ends the holder's lease now (clean shutdown), so that another instance takes it at once. */
  releaseLease(input: {
    readonly name: string;
    readonly holder: string;
  }): Promise<Result<true, DbFailure>>;
  /** The metrics reset counter (metrics-resets-repository.ts): what it stands at. */
  metricsResets(input: Record<string, never>): Promise<Result<number, DbFailure>>;
  /** Moves the metrics reset counter on (a reset made here); answers the value it now holds. */
  countMetricsReset(input: Record<string, never>): Promise<Result<number, DbFailure>>;
}
