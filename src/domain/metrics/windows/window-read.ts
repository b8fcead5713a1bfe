/**
 * @module One windowed read of a metric, as rules name it (a metric over the last N minutes or the N
 * before them), and the clamp of N to what is evaluated. Shared by the interning (window-reads.ts),
 * the grouping for the per-tick passes (read-groups.ts) and the snapshot's time windows.
 */
import { RETENTION_MINUTES } from '../metrics-limits.ts';
import type { MetricRef } from './metric-names.ts';

/**
 * One read: `ref` over the minutes `start`..`end - 1` counted back from the current, partial minute
 * (offset 0). The last N minutes are 0..N-1 (DESIGN 4); the N before them, N..2N-1.
 */
export interface WindowRead {
  readonly ref: MetricRef;
  /** N, clamped to 1..1440 (the retention). */
  readonly minutes: number;
  /** The N minutes before the last N (RATE_CHANGE); they never include the current minute. */
  readonly previous: boolean;
  readonly start: number;
  readonly end: number;
  /**
   * A silence metric's: epoch ms at which the rule reading it became ACTIVE (-Infinity: unknown,
   * count from start); a key with no event yet counts from the later of it and start. Silence
   * reads have no window: `start` and `end` are 0.
   */
  readonly activeSince: number;
}

/** A window of `windowMinutes` as evaluated: a whole number of minutes from 1 to 1440 (NaN: 1). */
export const clampWindow = (windowMinutes: number): number =>
  Number.isNaN(windowMinutes)
    ? 1
    : Math.min(RETENTION_MINUTES, Math.max(1, Math.floor(windowMinutes)));
