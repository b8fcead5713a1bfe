/**
 * @module The minute buckets of one moment laid out by age (offset 0 = the current, partial minute),
 * with running sums and extremes from offset 0: a window's counts are two array reads instead of a
 * loop over its minutes. Built once per evaluation tick, as deep as the deepest window read.
 */
import { SEVERITIES } from '../../event.ts';
import type { MetricsState } from '../state/metrics-state.ts';
import type { MinuteBucket } from '../state/minute-buckets.ts';

/** Prefix-sum columns: [k] = the total over offsets 0..k-1. */
export type PrefixColumn = Float64Array;

export const sumOver = (column: PrefixColumn, start: number, end: number): number =>
  column[end]! - column[start]!;

export class MinuteColumns {
  /** The bucket `k` minutes back; undefined when that minute has no events (or left the 24 h). */
  readonly buckets: (MinuteBucket | undefined)[];
  readonly events: PrefixColumn;
  readonly errors: PrefixColumn;
  readonly latencySum: PrefixColumn;
  /** By severity index (SEVERITY_INDEX). */
  readonly severities: readonly PrefixColumn[];
  /** Minutes with events among offsets 0..k-1. */
  readonly filled: PrefixColumn;
  /** Extremes over offsets 0..k-1: Infinity, -Infinity and 0 when they hold no event. */
  private readonly minLatency: Float64Array;
  private readonly maxLatency: Float64Array;
  private readonly maxPeakSecond: Float64Array;

  /** `depth`: how many minutes back, at most those inside the 24 h. */
  constructor(
    state: MetricsState,
    readonly depth: number,
  ) {
    const length = depth + 1;
    this.buckets = new Array<MinuteBucket | undefined>(depth);
    this.events = new Float64Array(length);
    this.errors = new Float64Array(length);
    this.latencySum = new Float64Array(length);
    this.severities = SEVERITIES.map(() => new Float64Array(length));
    this.filled = new Float64Array(length);
    this.minLatency = new Float64Array(length).fill(Infinity);
    this.maxLatency = new Float64Array(length).fill(-Infinity);
    this.maxPeakSecond = new Float64Array(length);
    for (let k = 0; k < depth; k++) {
      const bucket = state.buckets.get(state.currentMinute - k);
      this.buckets[k] = bucket;
      this.carry(k, bucket);
    }
  }

  private carry(k: number, bucket: MinuteBucket | undefined): void {
    const next = k + 1;
    this.events[next] = this.events[k]! + (bucket?.events ?? 0);
    this.errors[next] = this.errors[k]! + (bucket?.errors ?? 0);
    this.latencySum[next] = this.latencySum[k]! + (bucket?.latencySum ?? 0);
    this.severities.forEach((column, i) => {
      column[next] = column[k]! + (bucket?.severities[i] ?? 0);
    });
    this.filled[next] = this.filled[k]! + (bucket === undefined ? 0 : 1);
    this.minLatency[next] = Math.min(this.minLatency[k]!, bucket?.latencyMin ?? Infinity);
    this.maxLatency[next] = Math.max(this.maxLatency[k]!, bucket?.latencyMax ?? -Infinity);
    this.maxPeakSecond[next] = Math.max(this.maxPeakSecond[k]!, bucket?.peakSecondCount ?? 0);
  }

  /**
   * The same number for two ranges of offsets (start..end-1) that hold the same minutes with
   * events: every value over them is the same, so it keys a cache of range values.
   */
  rangeKey(start: number, end: number): number {
    return this.filled[start]! * 2048 + this.filled[end]!;
  }

  /** The lowest latency over offsets start..end-1; Infinity when they hold no event. */
  lowestLatency(start: number, end: number): number {
    if (start === 0) return this.minLatency[end]!;
    let lowest = Infinity;
    for (let k = start; k < end; k++) {
      lowest = Math.min(lowest, this.buckets[k]?.latencyMin ?? lowest);
    }
    return lowest;
  }

  /** The highest latency over offsets start..end-1; -Infinity when they hold no event. */
  highestLatency(start: number, end: number): number {
    if (start === 0) return this.maxLatency[end]!;
    let highest = -Infinity;
    for (let k = start; k < end; k++) {
      highest = Math.max(highest, this.buckets[k]?.latencyMax ?? highest);
    }
    return highest;
  }

  /** The highest 1-second count over offsets start..end-1; 0 when they hold no event. */
  peakSecond(start: number, end: number): number {
    if (start === 0) return this.maxPeakSecond[end]!;
    let peak = 0;
    for (let k = start; k < end; k++) peak = Math.max(peak, this.buckets[k]?.peakSecondCount ?? 0);
    return peak;
  }
}
