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

/**
 * Parses `errorRate` or `eventsByType[checkout.paid]`; null when it is not a metric name. The names
 * in the result are the constants above, not copies of the input: the per-tick switches on them
 * then compare interned strings by address.
 */
export function parseMetricName(name: string): MetricRef | null {
  const scalar = SCALAR_METRICS.find((metric) => metric === name);
  if (scalar !== undefined) return { kind: 'scalar', name: scalar };
  const match = INDEXED_FORM.exec(name);
  const map = INDEXED_METRICS.find((metric) => metric === match?.[1]);
  if (match === null || map === undefined) return null;
  return { kind: 'indexed', map, key: match[2] as string };
}

export const formatMetricName = (ref: MetricRef): string =>
  ref.kind === 'scalar' ? ref.name : `${ref.map}[${ref.key}]`;
