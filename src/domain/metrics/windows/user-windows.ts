/**
 * @module Windowed uniqueUsers for one moment: exact for a live window (the last N minutes) while no
 * user seen in it was forgotten past the cap, from running counts of the users last seen in each
 * minute; otherwise the HyperLogLog estimate, the live windows sharing one union grown from the
 * current minute back.
 */
import { HyperLogLog } from '../state/hyperloglog.ts';
import type { MetricsState } from '../state/metrics-state.ts';
import type { MinuteColumns, PrefixColumn } from './minute-columns.ts';
import type { WindowReads } from './window-reads.ts';

export class UserWindows {
  /** [k] = tracked users last seen among offsets 0..k-1. */
  private lastSeen: PrefixColumn | undefined;

  constructor(
    private readonly state: MetricsState,
    private readonly columns: MinuteColumns,
  ) {}

  /** Distinct users over offsets 0..end-1, or undefined when only an estimate is possible. */
  exactLive(end: number): number | undefined {
    const { users, currentMinute } = this.state;
    if (currentMinute - end + 1 <= users.forgottenThrough) return undefined;
    this.lastSeen ??= this.lastSeenColumn();
    return this.lastSeen[end];
  }

  /** Writes every live read of `slots` (sorted by window, ascending) into `values`. */
  fillLive(reads: WindowReads, slots: readonly number[], values: Float64Array): void {
    const { userSketches, currentMinute } = this.state;
    const union = new HyperLogLog();
    let merged = 0; // offsets 0..merged-1 are in `union`
    let estimate = 0;
    let estimatedAt = -1; // `filled` count the estimate was taken at
    for (const slot of slots) {
      const end = Math.min(reads.at(slot).end, this.columns.depth);
      const exact = this.exactLive(end);
      if (exact !== undefined) {
        values[slot] = exact;
        continue;
      }
      if (end > merged) {
        userSketches.mergeInto(
          union,
          currentMinute - end + 1,
          currentMinute - merged,
          currentMinute,
        );
        merged = end;
      }
      if (this.columns.filled[end] !== estimatedAt) {
        estimate = Math.round(union.estimate());
        estimatedAt = this.columns.filled[end]!;
      }
      values[slot] = estimate;
    }
  }

  /** The estimate over offsets start..end-1 (a window before the live one). */
  over(start: number, end: number): number {
    const { userSketches, currentMinute } = this.state;
    const union = new HyperLogLog();
    userSketches.mergeInto(union, currentMinute - end + 1, currentMinute - start, currentMinute);
    return Math.round(union.estimate());
  }

  private lastSeenColumn(): PrefixColumn {
    const { users, currentMinute } = this.state;
    const column = new Float64Array(this.columns.depth + 1);
    for (let k = 0; k < this.columns.depth; k++) {
      column[k + 1] = column[k]! + users.lastSeenIn(currentMinute - k);
    }
    return column;
  }
}
