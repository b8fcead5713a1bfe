/**
 * @module The metric names that rules may use (spec 2.8), parsed into references. Shared by the
 * aggregator (which answers them over a window) and the rule validator / evaluator.
 */
import type { SilenceScope } from '../state/last-event-times.ts';

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

/**
 * Producer-silent metrics (issue 18): seconds since the newest event of every type and source, of
 * one type, of one source. Not windowed: a value at one moment, whatever the rule's window.
 */
export const SILENCE_METRICS = [
  'secondsSinceLastEvent',
  'secondsSinceLastEventByType',
  'secondsSinceLastEventBySource',
] as const;
export type SilenceMetric = (typeof SILENCE_METRICS)[number];
/** The keyed ones, as `secondsSinceLastEventByType[<type>]`. */
export const KEYED_SILENCE_METRICS = [
  'secondsSinceLastEventByType',
  'secondsSinceLastEventBySource',
] as const;
export type KeyedSilenceMetric = (typeof KEYED_SILENCE_METRICS)[number];

export type MetricRef =
  | { readonly kind: 'scalar'; readonly name: ScalarMetric }
  | { readonly kind: 'indexed'; readonly map: IndexedMetric; readonly key: string }
  | {
      readonly kind: 'silence';
      readonly name: SilenceMetric;
      readonly scope: SilenceScope;
      /** The type or source; '' for secondsSinceLastEvent. */
      readonly key: string;
    };

/** The indexed map whose keys a keyed silence metric names (for hasKey and suggestions). */
export const SILENCE_KEY_MAP: Readonly<Record<KeyedSilenceMetric, IndexedMetric>> = {
  secondsSinceLastEventByType: 'eventsByType',
  secondsSinceLastEventBySource: 'eventsBySource',
};

/** Metrics that count events (integers); the rest are rates, averages or latencies. */
export const COUNT_METRICS: ReadonlySet<string> = new Set([
  'totalEvents',
  'uniqueUsers',
  'uniqueSources',
  'uniqueEventTypes',
  'totalErrors',
  ...INDEXED_METRICS,
]);

const INDEXED_FORM =
  /^(eventsByType|eventsBySource|eventsBySeverity|secondsSinceLastEventByType|secondsSinceLastEventBySource)\[(.+)\]$/s;
const SILENCE_ALL: Extract<MetricRef, { kind: 'silence' }> = {
  kind: 'silence',
  name: 'secondsSinceLastEvent',
  scope: 'all',
  key: '',
};

/**
 * Parses `errorRate` or `eventsByType[checkout.paid]`; null when it is not a metric name. The names
 * in the result are the constants above, not copies of the input: the per-tick switches on them
 * then compare interned strings by address.
 */
export function parseMetricName(name: string): MetricRef | null {
  const scalar = SCALAR_METRICS.find((metric) => metric === name);
  if (scalar !== undefined) return { kind: 'scalar', name: scalar };
  if (name === SILENCE_ALL.name) return SILENCE_ALL;
  const match = INDEXED_FORM.exec(name);
  if (match === null) return null;
  const key = match[2] as string;
  const silence = KEYED_SILENCE_METRICS.find((metric) => metric === match[1]);
  if (silence !== undefined) {
    const scope = silence === 'secondsSinceLastEventByType' ? 'type' : 'source';
    return { kind: 'silence', name: silence, scope, key };
  }
  const map = INDEXED_METRICS.find((metric) => metric === match[1]);
  return map === undefined ? null : { kind: 'indexed', map, key };
}

export function formatMetricName(ref: MetricRef): string {
  switch (ref.kind) {
    case 'scalar':
      return ref.name;
    case 'indexed':
      return `${ref.map}[${ref.key}]`;
    case 'silence':
      return ref.scope === 'all' ? ref.name : `${ref.name}[${ref.key}]`;
  }
}

/** True for the producer-silent metrics (secondsSinceLastEvent...): they have no window. */
export const isSilenceMetric = (metric: string): boolean =>
  parseMetricName(metric)?.kind === 'silence';
