/**
 * @module Caps and fixed sizes of the in-memory metrics (DESIGN 4, spec 8): the defaults of the
 * configurable caps, and the constants the metrics files share. Pure data.
 */

/** The configurable caps: they bound memory whatever the input (README "Caps"). */
export interface MetricsLimits {
  /** Event types kept by name at once (within the 24 h); further new types count under `(other)`. */
  readonly maxEventTypes: number;
  /** Sources kept by name at once (within the 24 h); further new sources count under `(other)`. */
  readonly maxSources: number;
  /**
   * Users tracked one by one (topUsers, exact uniqueUsers). Past it the least recently seen user is
   * forgotten, and uniqueUsers is a HyperLogLog estimate until the forgotten users leave the 24 h.
   */
  readonly maxTrackedUsers: number;
}

export const DEFAULT_METRICS_LIMITS: MetricsLimits = Object.freeze({
  maxEventTypes: 1000,
  maxSources: 1000,
  maxTrackedUsers: 100_000,
});

/** The key under which events of types or sources past their cap are counted. */
export const OTHER_KEY = '(other)';

/** Spec 8: metrics cover the last 24 h, kept in per-minute buckets. */
export const RETENTION_MINUTES = 1440;
/** Spec 8: latency statistics cover the last 1000 measurements (overall, per type, per source). */
export const LATENCY_SAMPLES = 1000;
export const TOP_USERS = 10;

/** throughput.current: events of the last 5 full seconds / 5. */
export const CURRENT_THROUGHPUT_SECONDS = 5;
/** throughput.avg covers the last hour (or the time since start / reset, if shorter). */
export const AVERAGE_THROUGHPUT_SECONDS = 3600;
/** throughput.trend: the last 60 s against the 300 s before them, with a ±10 % dead band. */
export const TREND_RECENT_SECONDS = 60;
export const TREND_BASELINE_SECONDS = 300;
export const TREND_TOLERANCE = 0.1;

/** HyperLogLog registers = 2^12 (4 KiB per sketch, standard error 1.04 / 64 = 1.6 %). */
export const HLL_PRECISION = 12;
/** Windowed latency histograms: values are clamped to 1 h; 2 digits = exact below 256 ms, else ±1 %. */
export const HISTOGRAM_MAX_LATENCY_MS = 3_600_000;
export const HISTOGRAM_SIGNIFICANT_DIGITS = 2;
/** hasKey() remembers at most this many keys per map since start / reset (bounds its memory). */
export const MAX_REMEMBERED_KEYS = 100_000;
