/**
 * @module The ANOMALY ruleConfig (issue 20 section 2): its keys, their bounds and defaults, and the
 * normalised shape that validation produces and the DRL, the baselines and the evaluator consume.
 */
import { BUCKET_MEASURES, type BucketMeasure } from '../../../metrics/windows/bucket-read.ts';
import type { LifecycleKeys } from '../../alerts/lifecycle-keys.ts';

/** What one bucket measures (declared with the metrics that answer it). */
export const ANOMALY_METRICS = BUCKET_MEASURES;
export type AnomalyMetric = BucketMeasure;
/** The metrics the live minute buckets hold per event type and source (the others: overall only). */
export const FILTERABLE_METRICS: readonly AnomalyMetric[] = ['eventRate', 'errorRate'];
/** Counts: judged after a square root, which makes Poisson noise the same width at any level. */
export const COUNT_METRICS: readonly AnomalyMetric[] = ['eventRate', 'uniqueUsers'];

export const ANOMALY_ALGORITHMS = ['basic', 'robust', 'seasonal'] as const;
export type AnomalyAlgorithm = (typeof ANOMALY_ALGORITHMS)[number];
export const SEASONALITIES = ['daily', 'weekly'] as const;
export type Seasonality = (typeof SEASONALITIES)[number];
export const DIRECTIONS = ['above', 'below', 'both'] as const;
export type AnomalyDirection = (typeof DIRECTIONS)[number];

/** Bucket widths: divisors of an hour, so that buckets align on local hours in every timezone. */
export const BUCKET_MINUTES = [1, 2, 5, 10, 15, 30, 60] as const;
/** The robust baseline's window: the last 60 buckets (median and MAD over them). */
export const ROBUST_WINDOW_BUCKETS = 60;
/** A seasonal baseline holds one slot per bucket of its season: at most a week of 5-minute buckets. */
export const MAX_SEASON_SLOTS = 2016;
/** The alert window holds at most this many buckets (its verdicts are a ring of that size). */
export const MAX_ALERT_WINDOW_BUCKETS = 60;
/** History back-filled and required: at most 21 days (three weekly seasons). */
export const MAX_HISTORY_MINUTES = 30_240;
/** A back-fill covers the history and then one alert window judged (at most 60 hour buckets). */
export const MAX_BACKFILL_MINUTES = MAX_HISTORY_MINUTES + MAX_ALERT_WINDOW_BUCKETS * 60;
export const MAX_BOUNDS = 20;

export const SEASON_MINUTES: Readonly<Record<Seasonality, number>> = {
  daily: 1440,
  weekly: 10_080,
};

/** An ANOMALY ruleConfig after validation: every key present except the optional filters. */
export interface AnomalyConfig extends LifecycleKeys {
  readonly metric: AnomalyMetric;
  /** Only events of this type / source count (eventRate, errorRate); absent: all events. */
  readonly eventType?: string;
  readonly source?: string;
  readonly bucketMinutes: number;
  readonly algorithm: AnomalyAlgorithm;
  /** Seasonal only: the season and the IANA zone its days start in (DST-correct). */
  readonly seasonality?: Seasonality;
  readonly timezone?: string;
  /** Band half-width in robust standard deviations. */
  readonly bounds: number;
  readonly direction: AnomalyDirection;
  readonly alertWindowMinutes: number;
  /** Fire when at least this fraction of the window's completed buckets lie outside the band. */
  readonly minFraction: number;
  /** Buckets whose expected value is below this are not judged (a quiet series). */
  readonly minExpected: number;
  /** The band is at least this wide on each side of the expected value, in the metric's unit. */
  readonly minDeviation: number;
  /** LEARNING (never fires) until this much history is covered. */
  readonly minHistoryMinutes: number;
}

/** The keys of an ANOMALY ruleConfig in the order the DRL and docs list them. */
export const ANOMALY_KEYS = [
  'metric',
  'eventType',
  'source',
  'bucketMinutes',
  'algorithm',
  'seasonality',
  'timezone',
  'bounds',
  'direction',
  'alertWindowMinutes',
  'minFraction',
  'minExpected',
  'minDeviation',
  'minHistoryMinutes',
] as const;

/** Default history to learn from: enough to fill the baseline once. */
export function defaultHistoryMinutes(
  algorithm: AnomalyAlgorithm,
  bucketMinutes: number,
  seasonality: Seasonality | undefined,
): number {
  if (algorithm === 'seasonal')
    return (seasonality === 'weekly' ? 2 : 3) * SEASON_MINUTES[seasonality ?? 'daily'];
  return Math.min(MAX_HISTORY_MINUTES, ROBUST_WINDOW_BUCKETS * bucketMinutes);
}

export const ANOMALY_DEFAULTS = {
  bucketMinutes: 5,
  algorithm: 'robust',
  seasonality: 'daily',
  timezone: 'UTC',
  bounds: 3,
  direction: 'both',
  minFraction: 0.8,
  minExpected: 0,
  minDeviation: 0,
} as const;

/** Buckets in the alert window (at least one). */
export const windowBuckets = (config: AnomalyConfig): number =>
  Math.max(1, Math.round(config.alertWindowMinutes / config.bucketMinutes));

/** Slots of a seasonal baseline. */
export const seasonSlots = (config: AnomalyConfig): number =>
  SEASON_MINUTES[config.seasonality ?? 'daily'] / config.bucketMinutes;
