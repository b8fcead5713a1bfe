/**
 * @module Synthetic bucket series with known shapes for the ANOMALY tests: deterministic noise
 * (a seeded generator), Poisson counts, a daily rhythm, and a runner that feeds a series and
 * records each bucket's band and verdict.
 */
import { validateAnomalyConfig } from '../../../../../src/domain/rules/kinds/anomaly/anomaly-validation.ts';
import type { AnomalyConfig } from '../../../../../src/domain/rules/kinds/anomaly/anomaly-config.ts';
import { AnomalySeries } from '../../../../../src/domain/rules/kinds/anomaly/anomaly-series.ts';
import { prng } from '../../../../support/prng.ts';

/** The benches' seeded generator (mulberry32): the same stream for the same seed. */
export const random = prng;

/** A Poisson count of mean `mean` (Knuth below 30, a rounded normal above). */
export function poisson(mean: number, next: () => number): number {
  if (mean <= 0) return 0;
  if (mean > 30) {
    const u = Math.max(next(), 1e-12);
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
    return Math.max(0, Math.round(mean + Math.sqrt(mean) * z));
  }
  const limit = Math.exp(-mean);
  let k = 0;
  let p = next();
  while (p > limit) {
    k++;
    p *= next();
  }
  return k;
}

export function config(raw: Record<string, unknown>): AnomalyConfig {
  const v = validateAnomalyConfig(raw);
  if (!v.ok) throw new Error(v.errors.join('; '));
  return v.config;
}

export interface Judged {
  readonly index: number;
  readonly observed: number;
  readonly expected: number | null;
  readonly lower: number | null;
  readonly upper: number | null;
  readonly outside: boolean;
  /** The rule holds after this bucket: minFraction of its alert window is outside. */
  readonly fires: boolean;
}

/** 2026-11-02T00:00:00Z, a Monday. */
export const MONDAY = Date.UTC(2026, 10, 2);

/** Feeds `values` (one per bucket from `start`) and answers each bucket's band and verdict. */
export function run(cfg: AnomalyConfig, values: readonly number[], start = MONDAY): Judged[] {
  const series = new AnomalySeries(cfg);
  const out: Judged[] = [];
  values.forEach((value, index) => {
    series.observe(start + index * series.bucketMs, value);
    const last = series.lastJudged;
    out.push({
      index,
      observed: value,
      expected: last?.band?.expected ?? null,
      lower: last?.band?.lower ?? null,
      upper: last?.band?.upper ?? null,
      outside: last?.outside ?? false,
      fires: series.holds(),
    });
  });
  return out;
}

/** A daily rhythm of 5-minute buckets: `low` at 03:00 UTC, `high` at 15:00. */
export const dailyMean = (bucket: number, low: number, high: number, bucketMinutes = 5): number => {
  const minuteOfDay = (bucket * bucketMinutes) % 1440;
  const phase = ((minuteOfDay - 180) / 1440) * 2 * Math.PI;
  return low + ((high - low) * (1 - Math.cos(phase))) / 2;
};
