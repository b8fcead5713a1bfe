/**
 * @module Who writes alert transitions and claims notifications: this process (its holder id,
 * unique per process start), and in cluster mode the epoch of the rule leader lease it holds. A
 * fenced write commits only while the lease still names both, so a leader that lost the lease
 * (paused, cut off) cannot store a transition after its successor took over.
 */
export interface TransitionWriter {
  /** Unique per process start: a restarted process never continues its old epoch. */
  readonly holder: string;
  /** The lease epoch held (cluster mode), or null: a single instance, no lease, no fence. */
  readonly epoch: number | null;
}

/** A writer holding the lease: its writes are fenced. */
export interface LeaderFence extends TransitionWriter {
  readonly epoch: number;
}

/** The lease the rule leader holds (one per database schema). */
export const RULES_LEASE = 'rules';
