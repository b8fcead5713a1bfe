/**
 * @module The band of one bucket: expected value ± bounds robust standard deviations, in the
 * metric's unit, with the floors that keep a quiet series from giving infinite z-scores. Counts are
 * judged after a square root (Poisson noise then has σ ≈ 0.5 at any level), the others as they are.
 */
import { COUNT_METRICS, type AnomalyConfig } from './anomaly-config.ts';
import type { Estimate } from './baselines.ts';

/** One judged bucket, in the metric's unit. */
export interface Band {
  expected: number;
  lower: number;
  upper: number;
}

/** The transform of a metric's values before they are learnt and judged, and its inverse. */
export interface Scale {
  to(value: number): number;
  from(value: number): number;
  /** The smallest σ in transformed units: the noise a series shows even when it looked flat. */
  floor(level: number): number;
  /**
   * The smallest σ in the metric's unit around `expected`: a count of a quiet series varies by
   * at least a Poisson σ of one event (its median of 0 or 1 says nothing of its spread).
   */
  unitFloor(expected: number): number;
}

const COUNTS: Scale = {
  to: (value) => Math.sqrt(Math.max(0, value)),
  from: (value) => (value <= 0 ? 0 : value * value),
  floor: () => 0.5,
  unitFloor: (expected) => Math.sqrt(Math.max(1, expected)),
};
/** errorRate, in percentage points: half a point. */
const PERCENT: Scale = { to: (v) => v, from: (v) => v, floor: () => 0.5, unitFloor: () => 0 };
/** Latencies: 1 ms, or 5 % of the level. */
const LATENCY: Scale = {
  to: (v) => v,
  from: (v) => v,
  floor: (level) => Math.max(1, 0.05 * level),
  unitFloor: () => 0,
};

export function scaleOf(config: AnomalyConfig): Scale {
  if (COUNT_METRICS.includes(config.metric)) return COUNTS;
  return config.metric === 'errorRate' ? PERCENT : LATENCY;
}

/** The band of an estimate into `out`: floors applied, then widened to minDeviation each side. */
export function bandOf(config: AnomalyConfig, scale: Scale, estimate: Estimate, out: Band): Band {
  const sigma = Math.max(estimate.sigma, scale.floor(estimate.level));
  const half = config.bounds * sigma;
  const expected = scale.from(estimate.level);
  out.expected = expected;
  const least = Math.max(config.minDeviation, config.bounds * scale.unitFloor(expected));
  out.lower = Math.min(scale.from(Math.max(0, estimate.level - half)), expected - least);
  out.upper = Math.max(scale.from(estimate.level + half), expected + least);
  // A count, rate or latency is never negative: a band below 0 would never be left.
  if (out.lower < 0) out.lower = 0;
  return out;
}

/** Is `observed` outside the band on the side(s) the rule watches? A quiet series is not judged. */
export function outside(config: AnomalyConfig, band: Band, observed: number): boolean {
  if (band.expected < config.minExpected) return false;
  switch (config.direction) {
    case 'above':
      return observed > band.upper;
    case 'below':
      return observed < band.lower;
    case 'both':
      return observed > band.upper || observed < band.lower;
  }
}
