/**
 * @module The metric names that rules may use (spec 2.8), parsed into references. Shared by the
 * aggregator (which answers them over a window) and the rule validator / evaluator.
 */
export const SCALAR_METRICS = [
  'totalEvents',
  'eventsPerSecond',
  'avgLatency',
  'errorRate',
  'uniqueUsers',
  'uniqueSources',
  'uniqueEventTypes',
  'latencyP50',
  'latencyP95',
  'latencyP99',
  'latencyMin',
  'latencyMax',
  'currentThroughput',
  'peakThroughput',
  'totalErrors',
] as const;
export type ScalarMetric = (typeof SCALAR_METRICS)[number];

export const INDEXED_METRICS = ['eventsByType', 'eventsBySource', 'eventsBySeverity'] as const;
export type IndexedMetric = (typeof INDEXED_METRICS)[number];

export type MetricRef =
  | { readonly kind: 'scalar'; readonly name: ScalarMetric }
  | { readonly kind: 'indexed'; readonly map: IndexedMetric; readonly key: string };

/** Metrics that count events (integers); the rest are rates, averages or latencies. */
export const COUNT_METRICS: ReadonlySet<string> = new Set([
  'totalEvents',
  'uniqueUsers',
  'uniqueSources',
  'uniqueEventTypes',
  'totalErrors',
  ...INDEXED_METRICS,
]);

const INDEXED_FORM = /^(eventsByType|eventsBySource|eventsBySeverity)\[(.+)\]$/s;

/** Parses `errorRate` or `eventsByType[checkout.paid]`; null when it is not a metric name. */
export function parseMetricName(name: string): MetricRef | null {
  if ((SCALAR_METRICS as readonly string[]).includes(name)) {
    return { kind: 'scalar', name: name as ScalarMetric };
  }
  const match = INDEXED_FORM.exec(name);
  if (match === null) return null;
  return { kind: 'indexed', map: match[1] as IndexedMetric, key: match[2] as string };
}

export const formatMetricName = (ref: MetricRef): string =>
  ref.kind === 'scalar' ? ref.name : `${ref.map}[${ref.key}]`;

/**
 * What the rule evaluator reads: each metric's value over the last `windowMinutes` (the current,
 * partial minute plus the N-1 before it, DESIGN 4), and whether an indexed key has been seen.
 */
export interface WindowedMetrics {
  value(ref: MetricRef, windowMinutes: number): number;
  /** Value over the `windowMinutes` that end where the last `windowMinutes` begin (RATE_CHANGE). */
  previousValue(ref: MetricRef, windowMinutes: number): number;
  /** True when some event since start or the last reset used this key. */
  hasKey(map: IndexedMetric, key: string): boolean;
}
