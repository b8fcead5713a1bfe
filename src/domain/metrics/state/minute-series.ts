/**
 * @module One mergeable summary per minute over the 24 h (latency histograms, user sketches), with
 * lazily built rollups of completed hours so that merging a long window takes ~24 + 120 merges.
 */
import { RETENTION_MINUTES } from '../metrics-limits.ts';
import { MINUTES_PER_HOUR, hourOfMinute } from '../time.ts';

export interface SeriesOps<T> {
  create(): T;
  clear(item: T): void;
  /** Adds `source` into `target`. */
  merge(target: T, source: T): void;
}

/** The 24 h touch at most 25 distinct hours. */
const HOUR_SLOTS = RETENTION_MINUTES / MINUTES_PER_HOUR + 1;

export class MinuteSeries<T> {
  private readonly minuteItems: (T | undefined)[] = [];
  private readonly minuteStamps = new Float64Array(RETENTION_MINUTES).fill(-1);
  private readonly hourItems: (T | undefined)[] = [];
  /** Hour whose rollup the slot holds; -1 when none (or invalidated by a late record). */
  private readonly hourStamps = new Float64Array(HOUR_SLOTS).fill(-1);
  private lastMinute = -1;
  private lastItem: T | undefined;

  constructor(private readonly ops: SeriesOps<T>) {}

  /** Hot path: the summary of `minute` (inside the 24 h) to record into, opened when needed. */
  at(minute: number): T {
    if (minute === this.lastMinute && this.lastItem !== undefined) return this.lastItem;
    const slot = minute % RETENTION_MINUTES;
    let item = this.minuteItems[slot];
    if (item === undefined) {
      item = this.ops.create();
      this.minuteItems[slot] = item;
    } else if (this.minuteStamps[slot] !== minute) {
      this.ops.clear(item);
    }
    this.minuteStamps[slot] = minute;
    // A late record into a completed hour makes its rollup stale.
    const hour = hourOfMinute(minute);
    const hourSlot = hour % HOUR_SLOTS;
    if (this.hourStamps[hourSlot] === hour) this.hourStamps[hourSlot] = -1;
    this.lastMinute = minute;
    this.lastItem = item;
    return item;
  }

  /**
   * Merges the minutes `from`..`to` (inside the 24 h) into `target`, using the rollup of every
   * completed hour (before the hour of `currentMinute`) that lies wholly inside the range.
   */
  mergeRange(target: T, from: number, to: number, currentMinute: number): void {
    const currentHour = hourOfMinute(currentMinute);
    let minute = from;
    while (minute <= to) {
      const hour = hourOfMinute(minute);
      const hourStart = hour * MINUTES_PER_HOUR;
      const hourEnd = hourStart + MINUTES_PER_HOUR - 1;
      if (minute === hourStart && hourEnd <= to && hour < currentHour) {
        this.ops.merge(target, this.rollup(hour));
        minute = hourEnd + 1;
        continue;
      }
      const item = this.valid(minute);
      if (item !== undefined) this.ops.merge(target, item);
      minute++;
    }
  }

  private valid(minute: number): T | undefined {
    const slot = minute % RETENTION_MINUTES;
    return this.minuteStamps[slot] === minute ? this.minuteItems[slot] : undefined;
  }

  private rollup(hour: number): T {
    const slot = hour % HOUR_SLOTS;
    let item = this.hourItems[slot];
    if (item === undefined) {
      item = this.ops.create();
      this.hourItems[slot] = item;
    } else if (this.hourStamps[slot] === hour) {
      return item;
    }
    this.ops.clear(item);
    const start = hour * MINUTES_PER_HOUR;
    for (let minute = start; minute < start + MINUTES_PER_HOUR; minute++) {
      const source = this.valid(minute);
      if (source !== undefined) this.ops.merge(item, source);
    }
    this.hourStamps[slot] = hour;
    // The fast path of at() must not skip invalidating this rollup on a late record.
    this.lastMinute = -1;
    return item;
  }
}
