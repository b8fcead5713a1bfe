/**
 * @module The three baselines of an ANOMALY series, each in fixed memory whatever its history: what
 * a bucket is expected to be (level) and how far it usually strays (a robust standard deviation).
 * Values come in already transformed (band.ts) and winsorised to the band, so an incident is not
 * learnt at full weight. Pure: a bucket's time comes in as an argument.
 */
import {
  ROBUST_WINDOW_BUCKETS,
  SEASON_MINUTES,
  seasonSlots,
  type AnomalyConfig,
} from './anomaly-config.ts';
import { LocalClock } from './timezone.ts';

/** Expected level and robust standard deviation of the next bucket, both in transformed units. */
export interface Estimate {
  level: number;
  sigma: number;
}

export interface Baseline {
  /** The estimate for the bucket starting at `start` (epoch ms) into `out`; false: none yet. */
  estimate(start: number, out: Estimate): boolean;
  /** Learns the bucket starting at `start`. */
  learn(start: number, value: number): void;
  /** Bytes of state it holds, whatever its history (docs/rules.md states them). */
  readonly bytes: number;
}

/** Buckets a basic or robust baseline sees before it estimates. */
const MIN_SAMPLES = 10;

/**
 * basic: exponentially weighted mean and mean absolute deviation (σ ≈ 1.25 · MAD for a normal
 * series); α = 2 / (N + 1) with N = 60 buckets, so it follows a trend with a lag of ~30 buckets.
 */
export class BasicBaseline implements Baseline {
  readonly bytes = 24;
  private static readonly ALPHA = 2 / (ROBUST_WINDOW_BUCKETS + 1);
  private mean = 0;
  private deviation = 0;
  private count = 0;

  estimate(_start: number, out: Estimate): boolean {
    if (this.count < MIN_SAMPLES) return false;
    out.level = this.mean;
    out.sigma = 1.25 * this.deviation;
    return true;
  }

  learn(_start: number, value: number): void {
    const a = BasicBaseline.ALPHA;
    if (this.count === 0) this.mean = value;
    this.deviation = (1 - a) * this.deviation + a * Math.abs(value - this.mean);
    this.mean = (1 - a) * this.mean + a * value;
    this.count++;
  }
}

/** Scratch for medians: one tick judges one series at a time. */
const scratch = new Float64Array(ROBUST_WINDOW_BUCKETS);

function median(values: Float64Array, n: number): number {
  const sorted = values.subarray(0, n).sort();
  const mid = n >> 1;
  return n % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** robust: median and MAD (σ = 1.4826 · MAD) of the last 60 buckets, a ring of 60 doubles. */
export class RobustBaseline implements Baseline {
  readonly bytes = ROBUST_WINDOW_BUCKETS * 8;
  private readonly ring = new Float64Array(ROBUST_WINDOW_BUCKETS);
  private count = 0;
  private next = 0;

  estimate(_start: number, out: Estimate): boolean {
    const n = Math.min(this.count, ROBUST_WINDOW_BUCKETS);
    if (n < MIN_SAMPLES) return false;
    scratch.set(this.ring.subarray(0, n));
    const level = median(scratch, n);
    for (let i = 0; i < n; i++) scratch[i] = Math.abs((this.ring[i] as number) - level);
    out.level = level;
    out.sigma = 1.4826 * median(scratch, n);
    return true;
  }

  learn(_start: number, value: number): void {
    this.ring[this.next] = value;
    this.next = (this.next + 1) % ROBUST_WINDOW_BUCKETS;
    this.count++;
  }
}

/** Weight of the newest season in a slot's level and deviation. */
const SEASON_ALPHA = 0.3;
/**
 * Neighbouring slots whose deviations are pooled on each side: a slot has seen few seasons, its
 * neighbours as many. Levels are not pooled: a step (the evening drop) would blur into its slots.
 */
const SIGMA_SPAN = 2;

/**
 * seasonal: per bucket of the local day or week (timezone, DST-correct), an exponentially weighted
 * level and mean absolute deviation across seasons (α = 0.3): 2 floats per slot (Float32).
 */
export class SeasonalBaseline implements Baseline {
  readonly bytes: number;
  private readonly levels: Float32Array;
  private readonly deviations: Float32Array;
  private readonly clock: LocalClock;
  private readonly bucketMinutes: number;
  private readonly seasonMinutes: number;

  constructor(config: AnomalyConfig) {
    const slots = seasonSlots(config);
    this.levels = new Float32Array(slots).fill(Number.NaN);
    this.deviations = new Float32Array(slots).fill(Number.NaN);
    this.bytes = slots * 8;
    this.clock = new LocalClock(config.timezone ?? 'UTC');
    this.bucketMinutes = config.bucketMinutes;
    this.seasonMinutes = SEASON_MINUTES[config.seasonality ?? 'daily'];
  }

  private slotOf(start: number): number {
    const minute = this.clock.minuteOfWeek(start) % this.seasonMinutes;
    return Math.floor(minute / this.bucketMinutes);
  }

  /** Mean of the set values of `array` within `span` slots of `slot`, NaN when none is set. */
  private pooled(array: Float32Array, slot: number, span: number): number {
    const n = array.length;
    let sum = 0;
    let count = 0;
    for (let d = -span; d <= span; d++) {
      const value = array[(slot + d + n) % n] as number;
      if (Number.isNaN(value)) continue;
      sum += value;
      count++;
    }
    return count === 0 ? Number.NaN : sum / count;
  }

  estimate(start: number, out: Estimate): boolean {
    const slot = this.slotOf(start);
    if (Number.isNaN(this.levels[slot])) return false;
    const sigma = this.pooled(this.deviations, slot, SIGMA_SPAN);
    if (Number.isNaN(sigma)) return false;
    out.level = this.levels[slot] as number;
    out.sigma = 1.25 * sigma;
    return true;
  }

  learn(start: number, value: number): void {
    const slot = this.slotOf(start);
    const level = this.levels[slot] as number;
    if (Number.isNaN(level)) {
      this.levels[slot] = value;
      return;
    }
    const deviation = Math.abs(value - level);
    const old = this.deviations[slot] as number;
    this.deviations[slot] = Number.isNaN(old)
      ? deviation
      : (1 - SEASON_ALPHA) * old + SEASON_ALPHA * deviation;
    this.levels[slot] = (1 - SEASON_ALPHA) * level + SEASON_ALPHA * value;
  }
}

export function baselineOf(config: AnomalyConfig): Baseline {
  switch (config.algorithm) {
    case 'basic':
      return new BasicBaseline();
    case 'robust':
      return new RobustBaseline();
    case 'seasonal':
      return new SeasonalBaseline(config);
  }
}
