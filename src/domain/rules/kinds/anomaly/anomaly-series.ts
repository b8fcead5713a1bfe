/**
 * @module One ANOMALY series: its baseline, the verdicts of the buckets in its alert window (a
 * ring), how much history it covers, and the last judged bucket (the band next to the observed
 * value). Fed completed buckets in order, from a back-fill of stored events or from the live
 * metrics, by the same observe(); pure, times are arguments (so a backtest can replay it).
 */
import { MINUTE_MS } from '../../../metrics/time.ts';
import { windowBuckets, type AnomalyConfig } from './anomaly-config.ts';
import { bandOf, outside, scaleOf, type Band, type Scale } from './band.ts';
import { baselineOf, type Baseline, type Estimate } from './baselines.ts';

/** The last bucket judged, for explanations, the rule test and the rule's status. */
export interface JudgedBucket {
  /** Epoch ms of the bucket's start. */
  readonly start: number;
  readonly observed: number;
  /** Null while the baseline has no estimate yet (too little history). */
  readonly band: Readonly<Band> | null;
  readonly outside: boolean;
}

/** What the rule's status and rule test say of a series. */
export interface AnomalySeriesStatus {
  /** LEARNING until minHistoryMinutes is covered: it never fires before. */
  readonly learning: boolean;
  /** Minutes of history covered: from the first bucket with data to the last one judged. */
  readonly historyMinutes: number;
  readonly minHistoryMinutes: number;
  /** Buckets learnt so far (back-filled and live). */
  readonly bucketsSeen: number;
  /** Buckets of the alert window outside the band, and the window's size in buckets. */
  readonly outsideInWindow: number;
  readonly windowBuckets: number;
  /** Bytes of baseline state (fixed per algorithm and config). */
  readonly baselineBytes: number;
  readonly last: JudgedBucket | null;
}

export class AnomalySeries {
  private readonly baseline: Baseline;
  private readonly scale: Scale;
  private readonly verdicts: Uint8Array;
  private next = 0;
  private outsideCount = 0;
  /** Start of the first bucket that had data (NaN: none yet): the covered history starts there. */
  private historyStart = Number.NaN;
  /** End of the last bucket observed (NaN: none yet). */
  private observedUntil = Number.NaN;
  private seen = 0;
  private last: JudgedBucket | null = null;
  private readonly estimate: Estimate = { level: 0, sigma: 0 };

  constructor(readonly config: AnomalyConfig) {
    this.baseline = baselineOf(config);
    this.scale = scaleOf(config);
    this.verdicts = new Uint8Array(windowBuckets(config));
  }

  get bucketMs(): number {
    return this.config.bucketMinutes * MINUTE_MS;
  }

  /** End of the last bucket observed, NaN before the first. */
  get until(): number {
    return this.observedUntil;
  }

  /**
   * One completed bucket starting at `start`, in order. `value` null: the metrics did not hold it
   * (a restart inside it): neither learnt nor judged, and counted inside the band.
   */
  observe(start: number, value: number | null): void {
    this.observedUntil = start + this.bucketMs;
    if (value === null) {
      this.verdict(false);
      return;
    }
    if (Number.isNaN(this.historyStart)) {
      // Nothing before the first event counts as history: the series may not have existed.
      if (value === 0) return;
      this.historyStart = start;
    }
    const learning = this.learningAt(this.observedUntil);
    const { config, scale } = this;
    const transformed = scale.to(value);
    let learnt = transformed;
    let judged: Band | null = null;
    let out = false;
    if (this.baseline.estimate(start, this.estimate)) {
      judged = bandOf(config, scale, this.estimate, { expected: 0, lower: 0, upper: 0 });
      out = outside(config, judged, value);
      // Winsorised: an anomalous bucket is learnt as the band's edge, not at full weight.
      learnt = Math.min(Math.max(transformed, scale.to(judged.lower)), scale.to(judged.upper));
    }
    this.baseline.learn(start, learnt);
    this.seen++;
    this.last = { start, observed: value, band: judged, outside: out };
    this.verdict(out && !learning);
  }

  /**
   * Moves to `until` without observing the buckets before it (nothing was read of them): the
   * alert window's verdicts are cleared, as they no longer describe the last buckets.
   */
  skipTo(until: number): void {
    this.observedUntil = until;
    this.verdicts.fill(0);
    this.outsideCount = 0;
  }

  private verdict(out: boolean): void {
    this.outsideCount += (out ? 1 : 0) - (this.verdicts[this.next] as number);
    this.verdicts[this.next] = out ? 1 : 0;
    this.next = (this.next + 1) % this.verdicts.length;
  }

  private learningAt(until: number): boolean {
    if (Number.isNaN(this.historyStart)) return true;
    return until - this.historyStart < this.config.minHistoryMinutes * MINUTE_MS;
  }

  /** LEARNING: too little history covered; it never fires. */
  get learning(): boolean {
    return this.learningAt(this.observedUntil);
  }

  /** Enough of the alert window's completed buckets lie outside the band (never while LEARNING). */
  holds(): boolean {
    if (this.learning) return false;
    // Rounded down a hair, so 0.8 of 5 buckets is 4 whatever the float error.
    return this.outsideCount >= this.config.minFraction * this.verdicts.length - 1e-9;
  }

  get lastJudged(): JudgedBucket | null {
    return this.last;
  }

  status(): AnomalySeriesStatus {
    const until = this.observedUntil;
    return {
      learning: this.learning,
      historyMinutes: Number.isNaN(this.historyStart)
        ? 0
        : Math.max(0, Math.round((until - this.historyStart) / MINUTE_MS)),
      minHistoryMinutes: this.config.minHistoryMinutes,
      bucketsSeen: this.seen,
      outsideInWindow: this.outsideCount,
      windowBuckets: this.verdicts.length,
      baselineBytes: this.baseline.bytes,
      last: this.last,
    };
  }
}
