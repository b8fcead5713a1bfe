/**
 * @module Minute ranges of the snapshot's windows (DESIGN 4) and uniqueUsers over one of them. The
 * windowed values of rules, many per moment, come from window-table.ts.
 */
import type { MetricsState } from './metrics-state.ts';
import { clampWindow } from './window-reads.ts';

/** Minutes `from`..`to`, both included, clipped to the 24 h; empty when to < from. */
export interface MinuteRange {
  readonly from: number;
  readonly to: number;
}

/** The last `windowMinutes`: the current, partial minute plus the N-1 before it (N in 1..1440). */
export function windowRange(state: MetricsState, windowMinutes: number): MinuteRange {
  const to = state.currentMinute;
  return { from: Math.max(state.oldestMinute, to - clampWindow(windowMinutes) + 1), to };
}

/**
 * Exact while no user seen in the range was forgotten past the tracked-user cap; otherwise the
 * HyperLogLog estimate of the range.
 */
export function uniqueUsersOver(state: MetricsState, range: MinuteRange): number {
  if (range.to < range.from) return 0;
  const exact = state.users.exactSince(range.from, range.to);
  return exact ?? state.userSketches.estimate(range.from, range.to, state.currentMinute);
}
