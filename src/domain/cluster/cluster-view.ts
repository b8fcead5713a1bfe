/**
 * @module What one instance's metrics include in cluster mode: the instances whose committed batches
 * they count, and whether that is every live instance.
 */
export interface ClusterView {
  /** Instance ids whose batches are counted here, this instance first. */
  readonly instances: readonly string[];
  /** False while a live peer's batches are missing (broker down, a gap, a stale peer). */
  readonly complete: boolean;
}
