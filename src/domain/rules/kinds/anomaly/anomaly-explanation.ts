/**
 * @module How an ANOMALY rule explains itself at a transition and in a rule test: the band
 * (expected, lower, upper) next to the observed value of the last completed bucket, the share of
 * the alert window outside it, as an explanation, values and words.
 */
import type { AnomalyConfig, AnomalyDirection, AnomalyMetric } from './anomaly-config.ts';
import type { AnomalySeriesStatus } from './anomaly-series.ts';

/** An ANOMALY rule as evaluated at a transition (an alert's `explanation`). */
export interface ExplainedBand {
  readonly measure: 'band';
  readonly metric: AnomalyMetric;
  readonly eventType: string | null;
  readonly source: string | null;
  readonly bucketMinutes: number;
  /** Start of the last completed bucket judged, ISO 8601 UTC; null before the first. */
  readonly bucketStart: string | null;
  /** Its value, and the band it was judged against (null while the baseline has no estimate). */
  readonly observed: number | null;
  readonly expected: number | null;
  readonly lower: number | null;
  readonly upper: number | null;
  readonly direction: AnomalyDirection;
  /** Buckets of the alert window outside the band, of `windowBuckets`; fires at minFraction. */
  readonly outsideBuckets: number;
  readonly windowBuckets: number;
  readonly minFraction: number;
  /** LEARNING: too little history yet; the rule never fires. */
  readonly learning: boolean;
  readonly result: boolean;
}

/** `eventRate`, `eventRate[eventType=checkout]`, `errorRate[source=web]`. */
export function seriesName(series: {
  readonly metric: AnomalyMetric;
  readonly eventType?: string | null | undefined;
  readonly source?: string | null | undefined;
}): string {
  if (series.eventType != null) return `${series.metric}[eventType=${series.eventType}]`;
  if (series.source != null) return `${series.metric}[source=${series.source}]`;
  return series.metric;
}

export function explainBand(
  config: AnomalyConfig,
  status: AnomalySeriesStatus,
  result: boolean,
): ExplainedBand {
  const { last } = status;
  return {
    measure: 'band',
    metric: config.metric,
    eventType: config.eventType ?? null,
    source: config.source ?? null,
    bucketMinutes: config.bucketMinutes,
    bucketStart: last === null ? null : new Date(last.start).toISOString(),
    observed: last?.observed ?? null,
    expected: last?.band?.expected ?? null,
    lower: last?.band?.lower ?? null,
    upper: last?.band?.upper ?? null,
    direction: config.direction,
    outsideBuckets: status.outsideInWindow,
    windowBuckets: status.windowBuckets,
    minFraction: config.minFraction,
    learning: status.learning,
    result,
  };
}

/** currentValues of an alert or rule test: the observed value and its band, by name. */
export function bandValues(band: ExplainedBand, name: string): Record<string, number> {
  const out: Record<string, number> = {};
  if (band.observed !== null) out[name] = band.observed;
  if (band.expected !== null) out[`expected(${name})`] = band.expected;
  if (band.lower !== null) out[`lower(${name})`] = band.lower;
  if (band.upper !== null) out[`upper(${name})`] = band.upper;
  out[`outsideFraction(${name})`] = band.outsideBuckets / band.windowBuckets;
  return out;
}

const shown = (value: number | null): string =>
  value === null ? 'no value' : String(Number(value.toPrecision(6)));

/** `eventRate per 5 min = 12, band 40..80 (expected 60); 3 of 3 buckets outside`. */
export function bandWords(band: ExplainedBand, name = seriesName(band)): string {
  const where =
    band.expected === null
      ? 'no band yet'
      : `band ${shown(band.lower)}..${shown(band.upper)} (expected ${shown(band.expected)})`;
  return `${name} per ${band.bucketMinutes} min = ${shown(band.observed)}, ${where}; ${band.outsideBuckets} of ${band.windowBuckets} buckets outside`;
}
