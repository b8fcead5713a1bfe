/**
 * @module Everything the aggregator holds between start / reset, and its upkeep as time passes:
 * when the clock enters a new minute, the minute that left the 24 h is subtracted and forgotten.
 * Also the per-minute user sketches, which only this state holds.
 */
import { ExpiredCounts } from './expired-counts.ts';
import { KeyRegistry } from './key-registry.ts';
import { LatencyHistograms } from './latency-histograms.ts';
import { HyperLogLog } from './hyperloglog.ts';
import { LatencyWindow } from './latency-window.ts';
import { type MetricsLimits, RETENTION_MINUTES } from '../metrics-limits.ts';
import { MinuteBuckets } from './minute-buckets.ts';
import { MinuteSeries } from './minute-series.ts';
import { PastWindows } from './past-windows.ts';
import { RetentionTotals } from './retention-totals.ts';
import { SecondRing } from './second-ring.ts';
import { hourOfMinute, minuteOf } from '../time.ts';
import { UserTracker } from './top-users.ts';

export class MetricsState {
  readonly types: KeyRegistry;
  readonly sources: KeyRegistry;
  readonly buckets = new MinuteBuckets();
  readonly totals = new RetentionTotals();
  /** What the minutes that left the 24 h counted: with `totals`, the counts since start / reset. */
  readonly expired: ExpiredCounts;
  readonly seconds = new SecondRing();
  readonly histograms = new LatencyHistograms();
  readonly overallLatency = new LatencyWindow();
  /** Indexed by type / source id; undefined once the key is released. */
  readonly typeLatency: (LatencyWindow | undefined)[] = [];
  readonly sourceLatency: (LatencyWindow | undefined)[] = [];
  readonly users: UserTracker;
  readonly userSketches = new UserSketches();
  /** Rule values over past windows, kept across evaluation ticks. */
  readonly pastWindows = new PastWindows();
  /** Index in SEVERITIES -> some event since start / reset had it (hasKey). */
  readonly severitiesSeen = [false, false, false, false];
  /** The minute of the clock's latest reading (never goes back); the 24 h end with it. */
  currentMinute: number;

  /** `since` = epoch ms of start or of the reset that made this state. */
  constructor(
    limits: MetricsLimits,
    readonly since: number,
  ) {
    this.types = new KeyRegistry(limits.maxEventTypes);
    this.sources = new KeyRegistry(limits.maxSources);
    this.users = new UserTracker(limits.maxTrackedUsers);
    this.expired = new ExpiredCounts(limits.maxEventTypes, limits.maxSources);
    this.currentMinute = minuteOf(since);
  }

  /** First minute of the 24 h (the current, partial minute is the last). */
  get oldestMinute(): number {
    return Math.max(0, this.currentMinute - RETENTION_MINUTES + 1);
  }

  /** Moves the 24 h forward to the minute of `now`: expires what left it. Cheap within a minute. */
  advance(now: number): void {
    const minute = minuteOf(now);
    if (minute <= this.currentMinute) return;
    const oldBefore = this.oldestMinute;
    const newHour = hourOfMinute(minute) !== hourOfMinute(this.currentMinute);
    this.currentMinute = minute;
    const before = this.oldestMinute;
    // Buckets exist only for minutes from oldBefore on (at most 1440 of them), whatever the jump.
    const end = Math.min(before, oldBefore + RETENTION_MINUTES);
    for (let gone = oldBefore; gone < end; gone++) this.expireMinute(gone);
    this.overallLatency.dropBefore(before);
    dropExpiredSamples(this.typeLatency, before);
    dropExpiredSamples(this.sourceLatency, before);
    this.users.sweep(before, hourOfMinute(minute), newHour);
  }

  private expireMinute(minute: number): void {
    const bucket = this.buckets.get(minute);
    if (bucket === undefined) return;
    // Before the subtraction releases the names of keys that fell to 0.
    this.expired.add(bucket, this.types, this.sources);
    this.totals.subtract(
      bucket,
      (id) => {
        this.types.release(id);
        this.typeLatency[id] = undefined;
      },
      (id) => {
        this.sources.release(id);
        this.sourceLatency[id] = undefined;
      },
    );
    this.buckets.close(minute);
  }
}

function dropExpiredSamples(windows: (LatencyWindow | undefined)[], before: number): void {
  for (const window of windows) window?.dropBefore(before);
}

/**
 * Per-minute HyperLogLog sketches of user ids over the 24 h: the estimate of distinct users in any
 * range of minutes (windowed rules, and uniqueUsers past the tracked-user cap).
 */
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
