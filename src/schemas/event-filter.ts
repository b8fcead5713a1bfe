/**
 * @module The filters of an event search (issue 34) read from a query string: GET /api/v1/events,
 * its /histogram and /export, and the `filter` header of a /topic/events subscription. Each bad
 * parameter gets its own error, named by the parameter (the 400's `errors`).
 */
import { SEVERITIES, type Severity } from '../domain/event.ts';
import {
  FILTER_PARAMS,
  METADATA_PREFIX,
  Q_FIELDS,
  RANGE_PARAMS,
  TAG_PREFIX,
  type EventFilter,
  type MetadataCondition,
  type QField,
  type Scalar,
  type TimeField,
} from '../domain/event-search/filter.ts';
import { MAX_NAME_CHARACTERS, MAX_TAG_VALUE_CHARACTERS } from './event.ts';

/** At most this many `tag.` and this many `metadata.` conditions: each is one more containment. */
export const MAX_TAG_CONDITIONS = 10;
export const MAX_METADATA_CONDITIONS = 10;
export const MAX_METADATA_DEPTH = 8;
export const MAX_Q_CHARACTERS = 200;

/** Parameters of a search that are not filters (read elsewhere): never "unknown" to the tail. */
const FILTER_NAMES = new Set<string>([...RANGE_PARAMS, ...FILTER_PARAMS]);

/** What the parser reads: URLSearchParams, or the route's Query. */
export type FilterParams = Pick<URLSearchParams, 'get' | 'getAll' | 'forEach'>;

/** ISO-8601 date or date-time (the zone is optional: without one, UTC), or epoch ms. */
const ISO =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;
const EPOCH_MS = /^-?\d{1,15}$/;
const HAS_ZONE = /(?:Z|[+-]\d{2}:?\d{2})$/i;

function instant(text: string): number | null {
  if (EPOCH_MS.test(text)) return Number(text);
  if (!ISO.test(text)) return null;
  // Date.parse reads a date-time without a zone as local time: the API means UTC.
  const dateTime = text.length > 10 && !HAS_ZONE.test(text) ? `${text}Z` : text;
  const ms = Date.parse(dateTime.replace(' ', 'T'));
  return Number.isNaN(ms) ? null : ms;
}

/** `5`, `true`, `null` as those scalars; anything else as the string itself. */
function scalarOf(text: string): Scalar {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (/^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(text)) {
    const n = Number(text);
    if (Number.isFinite(n)) return n;
  }
  return text;
}

/** `WARN` is read as WARNING (the spelling most loggers use). */
const severityOf = (text: string): Severity | null => {
  const upper = text.trim().toUpperCase();
  const name = upper === 'WARN' ? 'WARNING' : upper;
  return (SEVERITIES as readonly string[]).includes(name) ? (name as Severity) : null;
};

export interface FilterOptions {
  /** Parameters other than filters are errors (the tail's header); else they are left alone. */
  readonly strict: boolean;
}

/** The filter, or the errors by parameter name. */
export function parseEventFilter(
  params: FilterParams,
  options: FilterOptions = { strict: false },
): EventFilter | Record<string, string> {
  const errors: Record<string, string> = {};
  const one = (name: string): string | null => {
    const values = params.getAll(name);
    if (values.length > 1) errors[name] = `${name} may be given once`;
    return values[0] ?? null;
  };
  const name = (param: string): string | null => {
    const v = one(param);
    if (v === null) return null;
    if (v.length === 0 || v.length > MAX_NAME_CHARACTERS) {
      errors[param] = `${param} must hold 1 to ${MAX_NAME_CHARACTERS} characters`;
      return null;
    }
    return v;
  };
  const time = (param: 'from' | 'to'): number | null => {
    const v = one(param);
    if (v === null) return null;
    const ms = instant(v);
    if (ms === null) errors[param] = `${param} must be an ISO-8601 date-time or epoch milliseconds`;
    return ms;
  };

  const from = time('from');
  const to = time('to');
  if (from !== null && to !== null && from >= to) errors.to = 'to must be later than from';

  const timeFieldText = one('timeField') ?? 'timestamp';
  let timeField: TimeField = 'timestamp';
  if (timeFieldText === 'timestamp' || timeFieldText === 'receivedAt') timeField = timeFieldText;
  else errors.timeField = "timeField must be 'timestamp' or 'receivedAt'";

  let eventType = name('eventType');
  let eventTypePrefix: string | null = null;
  if (eventType !== null && eventType.endsWith('*')) {
    eventTypePrefix = eventType.slice(0, -1);
    eventType = null;
    if (eventTypePrefix.includes('*')) {
      errors.eventType = "eventType takes one '*', at its end (a prefix: checkout.*)";
    }
    if (eventTypePrefix === '') eventTypePrefix = null;
  }

  const severities: Severity[] = [];
  for (const part of params.getAll('severity').flatMap((v) => v.split(','))) {
    const severity = severityOf(part);
    if (severity === null) {
      errors.severity = `severity must be among ${SEVERITIES.join(', ')}, got '${part.slice(0, 40)}'`;
    } else if (!severities.includes(severity)) severities.push(severity);
  }

  const tags: Array<readonly [string, string]> = [];
  const metadata: MetadataCondition[] = [];
  const unknown: string[] = [];
  params.forEach((value, key) => {
    if (key.startsWith(TAG_PREFIX)) {
      const tag = key.slice(TAG_PREFIX.length);
      if (tag === '') errors[key] = 'tag.<key> needs a key';
      else if (value.length > MAX_TAG_VALUE_CHARACTERS) {
        errors[key] = `${key} must hold at most ${MAX_TAG_VALUE_CHARACTERS} characters`;
      } else if (tags.some(([k]) => k === tag)) errors[key] = `${key} may be given once`;
      else tags.push([tag, value]);
    } else if (key.startsWith(METADATA_PREFIX)) {
      const path = key.slice(METADATA_PREFIX.length).split('.');
      if (path.some((p) => p === '')) errors[key] = 'metadata.<path> needs dot-separated keys';
      else if (path.length > MAX_METADATA_DEPTH) {
        errors[key] = `${key} may be at most ${MAX_METADATA_DEPTH} keys deep`;
      } else if (value.length > MAX_TAG_VALUE_CHARACTERS) {
        errors[key] = `${key} must hold at most ${MAX_TAG_VALUE_CHARACTERS} characters`;
      } else if (metadata.some((m) => m.path.join('.') === path.join('.'))) {
        errors[key] = `${key} may be given once`;
      } else metadata.push({ path, value: scalarOf(value) });
    } else if (!FILTER_NAMES.has(key)) unknown.push(key);
  });
  if (tags.length > MAX_TAG_CONDITIONS) {
    errors.tag = `at most ${MAX_TAG_CONDITIONS} tag.<key> conditions`;
  }
  if (metadata.length > MAX_METADATA_CONDITIONS) {
    errors.metadata = `at most ${MAX_METADATA_CONDITIONS} metadata.<path> conditions`;
  }
  if (options.strict) {
    for (const key of unknown) errors[key.slice(0, 60)] = `${key.slice(0, 60)} is not a filter`;
  }

  const q = one('q');
  if (q !== null && (q.length === 0 || q.length > MAX_Q_CHARACTERS)) {
    errors.q = `q must hold 1 to ${MAX_Q_CHARACTERS} characters`;
  }
  const qFieldText = one('qField');
  let qField: QField | null = null;
  if (qFieldText !== null) {
    if ((Q_FIELDS as readonly string[]).includes(qFieldText)) qField = qFieldText as QField;
    else errors.qField = `qField must be one of ${Q_FIELDS.join(', ')}`;
    if (q === null) errors.qField ??= 'qField needs q';
  }

  const source = name('source');
  const userId = name('userId');
  const sessionId = name('sessionId');
  if (Object.keys(errors).length > 0) return errors;
  return {
    from,
    to,
    timeField,
    eventType,
    eventTypePrefix,
    source,
    severities,
    userId,
    sessionId,
    tags,
    metadata,
    q,
    qField,
  };
}

export const isEventFilter = (v: EventFilter | Record<string, string>): v is EventFilter =>
  typeof (v as EventFilter).timeField === 'string' && Array.isArray((v as EventFilter).tags);
