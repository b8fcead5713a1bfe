/**
 * @module The lifecycle of one rule (issue 18): OK → PENDING (the condition has held for less than
 * pendingSeconds) → FIRING → RESOLVED (then OK). Pure: the evaluator tells it, once per tick,
 * whether the condition holds (while FIRING: with the recovery thresholds) and what time it is.
 * One small object per rule, mutated in place: a tick that changes nothing allocates nothing.
 */

export type LifecycleState = 'OK' | 'PENDING' | 'FIRING';

/** What one observation asks of the evaluator. */
export type LifecycleStep =
  /** Nothing to do. */
  | null
  /** The condition held for pendingSeconds: fire now (then call fired()), or stay PENDING. */
  | 'fire'
  /** The condition was false for keepFiringSeconds: the rule resolved and is OK again. */
  | 'resolve';

/** A rule's timing, in ms (pendingSeconds and keepFiringSeconds of its ruleConfig). */
export interface LifecycleTimes {
  readonly pendingMs: number;
  readonly keepFiringMs: number;
  /**
   * How long the metrics must have been observed before a rule restored FIRING may resolve on a
   * false condition: its longest window (the metrics start empty after a restart, so an empty
   * window is no recovery). A true evaluation ends the wait: later ones are real observations.
   */
  readonly restoreMs: number;
}

export class RuleLifecycle {
  private current: LifecycleState = 'OK';
  /** PENDING: since when the condition holds; FIRING: when it fired. */
  private since = 0;
  /** FIRING: since when the condition is false; NaN while it holds. */
  private clearSince = Number.NaN;
  /** Restored FIRING and not yet seen true: since its first observation (NaN before it). */
  private restoredAt = Number.NaN;
  private restored = false;

  /** A rule whose incident is open (rebuilt after a restart from the stored alert). */
  static firingSince(firedAt: number): RuleLifecycle {
    const lifecycle = new RuleLifecycle();
    lifecycle.fired(firedAt);
    lifecycle.restored = true;
    return lifecycle;
  }

  /**
   * A FIRING lifecycle taken back from a checkpoint after a restart, whose condition still held
   * then, waits like one rebuilt from its open incident: not everything it watches is in the
   * checkpoint (an ANOMALY rule's series are read again by its back-fill), so a false condition
   * right after the start is no recovery. One already clearing keeps its clearing time.
   */
  restartedFiring(): void {
    if (this.current !== 'FIRING' || !Number.isNaN(this.clearSince)) return;
    this.restored = true;
    this.restoredAt = Number.NaN;
  }

  get state(): LifecycleState {
    return this.current;
  }

  /** Since when the condition holds (meaningful only while PENDING). */
  get pendingSince(): number {
    return this.since;
  }

  /** When it went FIRING (meaningful only while FIRING). */
  get firedAt(): number {
    return this.since;
  }

  /**
   * One evaluation at `now`. `holds`: the rule's condition, or while FIRING the condition with
   * the recovery thresholds (so that it resolves only once the value crossed them).
   */
  observe(holds: boolean, now: number, times: LifecycleTimes): LifecycleStep {
    switch (this.current) {
      case 'OK':
        if (!holds) return null;
        this.current = 'PENDING';
        this.since = now;
        return times.pendingMs <= 0 ? 'fire' : null;
      case 'PENDING':
        if (!holds) {
          this.current = 'OK';
          return null;
        }
        return now - this.since >= times.pendingMs ? 'fire' : null;
      case 'FIRING':
        if (holds) {
          this.clearSince = Number.NaN;
          this.restored = false;
          return null;
        }
        if (this.restored) {
          if (Number.isNaN(this.restoredAt)) this.restoredAt = now;
          if (now - this.restoredAt < times.restoreMs) return null;
          this.restored = false;
        }
        if (Number.isNaN(this.clearSince)) this.clearSince = now;
        if (now - this.clearSince < times.keepFiringMs) return null;
        this.current = 'OK';
        this.clearSince = Number.NaN;
        return 'resolve';
    }
  }

  /** The evaluator fired the rule (after 'fire', when throttling allowed it). */
  fired(now: number): void {
    this.current = 'FIRING';
    this.since = now;
    this.clearSince = Number.NaN;
    this.restored = false;
  }
}
