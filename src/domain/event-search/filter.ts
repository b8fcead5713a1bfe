/**
 * @module What an event search asks for (issue 34): the filters of GET /api/v1/events, its
 * histogram and export, and of a live tail subscription on /topic/events, as one shape; and the
 * in-memory test of a stored event against them (the tail), with the same meaning as the SQL
 * (src/db/event-search-repository.ts).
 */
import type { EventRecord, Severity } from '../event.ts';

export type TimeField = 'timestamp' | 'receivedAt';

/** The fields `q` may be pointed at with `qField`; without one it looks in eventType and source. */
export const Q_FIELDS = ['eventType', 'source', 'userId', 'sessionId', 'metadata', 'tags'] as const;
export type QField = (typeof Q_FIELDS)[number];

/**
 * The query parameters that filter by name, as the API, the tail's header and the dashboard's URL
 * spell them; `tag.<key>` and `metadata.<path>` take what follows their prefix.
 */
export const FILTER_PARAMS = [
  'eventType',
  'source',
  'severity',
  'userId',
  'sessionId',
  'q',
  'qField',
] as const;
export const TAG_PREFIX = 'tag.';
export const METADATA_PREFIX = 'metadata.';
/** The parameters that bound the time instead (not filters to a live tail, which has no range). */
export const RANGE_PARAMS = ['from', 'to', 'timeField'] as const;

/** A JSON scalar a metadata path must equal; a number or boolean also matches its text. */
export type Scalar = string | number | boolean | null;

export interface MetadataCondition {
  /** `metadata.order.total=5` -> ['order', 'total']. */
  readonly path: readonly string[];
  readonly value: Scalar;
}

export interface EventFilter {
  /** Epoch ms, inclusive; null: unbounded. */
  readonly from: number | null;
  /** Epoch ms, exclusive; null: unbounded. */
  readonly to: number | null;
  readonly timeField: TimeField;
  /** Exact type; null: any. */
  readonly eventType: string | null;
  /** `checkout.*` -> 'checkout.'; null: no prefix condition. */
  readonly eventTypePrefix: string | null;
  readonly source: string | null;
  /** Any of these; empty: any severity. */
  readonly severities: readonly Severity[];
  readonly userId: string | null;
  readonly sessionId: string | null;
  readonly tags: ReadonlyArray<readonly [string, string]>;
  readonly metadata: readonly MetadataCondition[];
  /** Text contained (case-insensitively); null: no text search. */
  readonly q: string | null;
  readonly qField: QField | null;
}

export const NO_FILTER: EventFilter = {
  from: null,
  to: null,
  timeField: 'timestamp',
  eventType: null,
  eventTypePrefix: null,
  source: null,
  severities: [],
  userId: null,
  sessionId: null,
  tags: [],
  metadata: [],
  q: null,
  qField: null,
};

/**
 * The filter holds at most an exact event type: its total comes from the count tables
 * (event_counts), exact at any depth.
 */
export const isCountedScope = (f: EventFilter): boolean =>
  f.from === null &&
  f.to === null &&
  f.eventTypePrefix === null &&
  f.source === null &&
  f.severities.length === 0 &&
  f.userId === null &&
  f.sessionId === null &&
  f.tags.length === 0 &&
  f.metadata.length === 0 &&
  f.q === null;

/** The text `q` looks in for a field, as the SQL reads it (JSON columns as their JSON text). */
function qTexts(event: EventRecord, field: QField | null): readonly string[] {
  switch (field) {
    case null:
      return [event.eventType, event.source];
    case 'metadata':
      return [JSON.stringify(event.metadata)];
    case 'tags':
      return [JSON.stringify(event.tags)];
    default:
      return [event[field] ?? ''];
  }
}

/** The value at `path` of `metadata`, or undefined when the path leads nowhere. */
function at(metadata: unknown, path: readonly string[]): unknown {
  let node = metadata;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A number, boolean or null given in the query also matches the same text stored as a string. */
const scalarMatches = (stored: unknown, wanted: Scalar): boolean =>
  stored === wanted || (wanted !== null && typeof wanted !== 'string' && stored === String(wanted));

/** Whether a stored event passes every condition of `f` (the live tail's test). */
export function matches(f: EventFilter, event: EventRecord): boolean {
  if (f.from !== null || f.to !== null) {
    const t = Date.parse(f.timeField === 'timestamp' ? event.timestamp : event.receivedAt);
    if (f.from !== null && t < f.from) return false;
    if (f.to !== null && t >= f.to) return false;
  }
  if (f.eventType !== null && event.eventType !== f.eventType) return false;
  if (f.eventTypePrefix !== null && !event.eventType.startsWith(f.eventTypePrefix)) return false;
  if (f.source !== null && event.source !== f.source) return false;
  if (f.severities.length > 0 && !f.severities.includes(event.severity)) return false;
  if (f.userId !== null && event.userId !== f.userId) return false;
  if (f.sessionId !== null && event.sessionId !== f.sessionId) return false;
  for (const [key, value] of f.tags) if (event.tags[key] !== value) return false;
  for (const c of f.metadata) if (!scalarMatches(at(event.metadata, c.path), c.value)) return false;
  if (f.q !== null) {
    const needle = f.q.toLowerCase();
    if (!qTexts(event, f.qField).some((text) => text.toLowerCase().includes(needle))) return false;
  }
  return true;
}
