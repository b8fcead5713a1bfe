/**
 * @module Per-minute HyperLogLog sketches of user ids over the 24 h: the estimate of distinct users
 * in any range of minutes (windowed rules, and uniqueUsers past the tracked-user cap).
 */
import { HyperLogLog } from './hyperloglog.ts';
import { MinuteSeries } from './minute-series.ts';

export class UserSketches {
  private readonly series = new MinuteSeries<HyperLogLog>({
    create: () => new HyperLogLog(),
    clear: (sketch) => sketch.clear(),
    merge: (target, source) => target.merge(source),
  });
  private readonly union = new HyperLogLog();

  /** Hot path: a user (by hashString of its id) seen in `minute`. */
  add(minute: number, userHash: number): void {
    this.series.at(minute).addHash(userHash);
  }

  /** Estimated distinct users in minutes `from`..`to` (inside the 24 h), rounded. */
  estimate(from: number, to: number, currentMinute: number): number {
    if (to < from) return 0;
    this.union.clear();
    this.mergeInto(this.union, from, to, currentMinute);
    return Math.round(this.union.estimate());
  }

  /** Adds the users seen in minutes `from`..`to` (inside the 24 h) to `union`. */
  mergeInto(union: HyperLogLog, from: number, to: number, currentMinute: number): void {
    this.series.mergeRange(union, from, to, currentMinute);
  }
}
