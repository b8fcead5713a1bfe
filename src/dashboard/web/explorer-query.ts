/**
 * @module The explorer's search as it lives in the URL (`#/events?source=web&severity=ERROR&range=15m`):
 * parsed from and written to the hash, so a search is a link to share; turned into the query string
 * of GET /api/v1/events (and its histogram, export and the live tail's `filter` header).
 */
import {
  FILTER_PARAMS,
  METADATA_PREFIX,
  Q_FIELDS,
  RANGE_PARAMS,
  TAG_PREFIX,
} from '../../domain/event-search/filter.ts';

/** Fields a chip may filter on; `tag.<key>` and `metadata.<path>` take the key after the dot. */
export const FILTER_FIELDS = [...FILTER_PARAMS, TAG_PREFIX, METADATA_PREFIX] as const;

/** Where `q` looks instead of type and source (the API's `qField`). */
export { Q_FIELDS };

/** Preset ranges, back from now; `all` sends no bounds. */
export const RANGES = [
  ['15m', 'Last 15 minutes', 15 * 60_000],
  ['1h', 'Last hour', 3_600_000],
  ['6h', 'Last 6 hours', 6 * 3_600_000],
  ['24h', 'Last 24 hours', 86_400_000],
  ['7d', 'Last 7 days', 7 * 86_400_000],
  ['all', 'All time', 0],
  ['custom', 'From – to', 0],
] as const;
export type RangeName = (typeof RANGES)[number][0];

export interface Filter {
  /** `source`, `tag.region`, `metadata.cart.total`... */
  readonly field: string;
  readonly value: string;
}

export interface ExplorerQuery {
  readonly filters: readonly Filter[];
  readonly range: RangeName;
  /** `custom` only: ISO date-times (either may be ''). */
  readonly from: string;
  readonly to: string;
  /** `timestamp` (when it happened, the default) or `receivedAt`. */
  readonly timeField: 'timestamp' | 'receivedAt';
}

const NOT_FILTERS = new Set<string>(['range', ...RANGE_PARAMS]);
const isRange = (value: string): value is RangeName => RANGES.some(([name]) => name === value);

export const emptyQuery = (): ExplorerQuery => ({
  filters: [],
  range: '24h',
  from: '',
  to: '',
  timeField: 'timestamp',
});

/** The search in a hash such as `#/events?source=web`; anything unknown is dropped. */
export function queryOfHash(hash: string): ExplorerQuery {
  const at = hash.indexOf('?');
  const params = new URLSearchParams(at < 0 ? '' : hash.slice(at + 1));
  const range = params.get('range') ?? '24h';
  const filters: Filter[] = [];
  for (const [field, value] of params) {
    if (NOT_FILTERS.has(field) || value === '') continue;
    if (
      FILTER_FIELDS.some((f) =>
        f.endsWith('.') ? field.startsWith(f) && field.length > f.length : f === field,
      )
    )
      filters.push({ field, value });
  }
  return {
    filters,
    range: isRange(range) ? range : '24h',
    from: params.get('from') ?? '',
    to: params.get('to') ?? '',
    timeField: params.get('timeField') === 'receivedAt' ? 'receivedAt' : 'timestamp',
  };
}

export function hashOfQuery(view: string, query: ExplorerQuery): string {
  const params = filterParams(query.filters);
  params.set('range', query.range);
  if (query.range === 'custom') {
    if (query.from !== '') params.set('from', query.from);
    if (query.to !== '') params.set('to', query.to);
  }
  if (query.timeField !== 'timestamp') params.set('timeField', query.timeField);
  return `#/${view}?${params.toString()}`;
}

/** Chips of the same field are one filter: several severities become `severity=ERROR,WARN`. */
function filterParams(filters: readonly Filter[]): URLSearchParams {
  const params = new URLSearchParams();
  for (const { field, value } of filters) {
    const held = params.get(field);
    params.set(field, held === null ? value : `${held},${value}`);
  }
  return params;
}

/** The filters alone: the live tail's `filter` header (new events have no range to fall in). */
export const tailFilter = (query: ExplorerQuery): string => filterParams(query.filters).toString();

/** The API's query string: filters and the range resolved against `now` (ms). */
export function apiParams(query: ExplorerQuery, now: number): URLSearchParams {
  const params = filterParams(query.filters);
  const preset = RANGES.find(([name]) => name === query.range);
  if (query.range === 'custom') {
    if (query.from !== '') params.set('from', new Date(query.from).toISOString());
    if (query.to !== '') params.set('to', new Date(query.to).toISOString());
  } else if (preset !== undefined && preset[2] > 0) {
    params.set('from', new Date(now - preset[2]).toISOString());
    params.set('to', new Date(now).toISOString());
  }
  if (query.timeField !== 'timestamp') params.set('timeField', query.timeField);
  return params;
}

/**
 * What a rule made from this search watches: the exact event type if one is filtered (not a
 * prefix, which no metric counts), else the source, else the error count.
 */
export function ruleMetricOf(query: ExplorerQuery): { metric: string; name: string } {
  const type = query.filters.find((f) => f.field === 'eventType' && !f.value.includes('*'));
  if (type !== undefined)
    return { metric: `eventsByType[${type.value}]`, name: `${type.value} events` };
  const source = query.filters.find((f) => f.field === 'source' && !f.value.includes(','));
  if (source !== undefined)
    return { metric: `eventsBySource[${source.value}]`, name: `Events from ${source.value}` };
  return { metric: 'totalErrors', name: 'Errors' };
}

/** Rule windows are 5 minutes unless set: the busiest bucket scaled to 5 minutes, at least 1. */
export const RULE_WINDOW_MINUTES = 5;
export function thresholdOf(counts: readonly number[], bucketMs: number): number {
  const busiest = Math.max(0, ...counts);
  if (bucketMs <= 0) return Math.max(1, busiest);
  return Math.max(1, Math.ceil((busiest * RULE_WINDOW_MINUTES * 60_000) / bucketMs));
}
