/**
 * @module The query and answers of the event search endpoints (issue 34): GET /api/v1/events with
 * filters, /histogram and /export. For OpenAPI and for tests' typed answers; parsing lives in
 * event-filter.ts.
 */
import { Type } from '@sinclair/typebox';
import { SEVERITIES } from '../domain/event.ts';
import { Q_FIELDS } from '../domain/event-search/filter.ts';
import { EventSchema } from './event-responses.ts';
import { PageFields, PagingQuerySchema } from './paging.ts';

export const HISTOGRAM_DEFAULT_BUCKETS = 60;
export const HISTOGRAM_MAX_BUCKETS = 500;
export const EXPORT_DEFAULT_ROWS = 100_000;

const Instant = (what: string) =>
  Type.String({ description: `${what}: ISO-8601 date-time (UTC when no zone) or epoch ms` });

export const FilterQuerySchema = Type.Object({
  from: Type.Optional(Instant('inclusive start')),
  to: Type.Optional(Instant('exclusive end')),
  timeField: Type.Optional(
    Type.Union([Type.Literal('timestamp'), Type.Literal('receivedAt')], {
      default: 'timestamp',
      description: 'the time from/to bound',
    }),
  ),
  eventType: Type.Optional(
    Type.String({ description: "exact type, or a prefix ending in '*' (checkout.*)" }),
  ),
  source: Type.Optional(Type.String()),
  severity: Type.Optional(
    Type.String({
      description: `one or several (repeated or comma-separated) of ${SEVERITIES.join(', ')}; WARN = WARNING`,
    }),
  ),
  userId: Type.Optional(Type.String()),
  sessionId: Type.Optional(Type.String()),
  'tag.{key}': Type.Optional(
    Type.String({ description: 'tag.<key>=<value>: the tag equals the value (up to 10)' }),
  ),
  'metadata.{path}': Type.Optional(
    Type.String({
      description:
        'metadata.<dotted.path>=<value>: equals a JSON scalar; 5, true, false, null also match ' +
        'that text stored as a string (up to 10)',
    }),
  ),
  q: Type.Optional(
    Type.String({ description: 'text contained (any case) in eventType or source' }),
  ),
  qField: Type.Optional(
    Type.Union(
      Q_FIELDS.map((f) => Type.Literal(f)),
      { description: 'where q looks instead (metadata, tags: their JSON text)' },
    ),
  ),
});

export const SearchQuerySchema = Type.Composite([
  PagingQuerySchema,
  FilterQuerySchema,
  Type.Object({
    cursor: Type.Optional(
      Type.String({ description: "a previous answer's nextCursor; page is then ignored" }),
    ),
  }),
]);

export const SearchPageSchema = Type.Object({
  content: Type.Array(EventSchema),
  ...PageFields,
  totalElementsExact: Type.Boolean({
    description: 'false: totalElements (and totalPages) are an estimate',
  }),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: 'the cursor of the next page; null on the last',
  }),
});

export const HistogramQuerySchema = Type.Composite([
  FilterQuerySchema,
  Type.Object({
    buckets: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: HISTOGRAM_MAX_BUCKETS,
        default: HISTOGRAM_DEFAULT_BUCKETS,
      }),
    ),
  }),
]);

export const HistogramSchema = Type.Object({
  from: Type.String({ format: 'date-time' }),
  to: Type.String({ format: 'date-time' }),
  timeField: Type.Union([Type.Literal('timestamp'), Type.Literal('receivedAt')]),
  bucketMs: Type.Integer(),
  buckets: Type.Array(
    Type.Object({ start: Type.String({ format: 'date-time' }), count: Type.Integer() }),
  ),
});

export const ExportQuerySchema = Type.Composite([
  FilterQuerySchema,
  Type.Object({
    format: Type.Optional(
      Type.Union([Type.Literal('ndjson'), Type.Literal('csv')], { default: 'ndjson' }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        default: EXPORT_DEFAULT_ROWS,
        description: 'most rows; above EVENT_EXPORT_MAX_ROWS it is reduced to it',
      }),
    ),
  }),
]);

/** The NDJSON export's last line (CSV: the same as a `# key=value ...` comment line). */
export const ExportSummarySchema = Type.Object({
  exportSummary: Type.Object({
    rows: Type.Integer(),
    limit: Type.Integer(),
    /** The limit stopped the export before the last match. */
    truncated: Type.Boolean(),
    /** false: a read failed midway (error says why); the rows before it are whole. */
    complete: Type.Boolean(),
    error: Type.Optional(Type.String()),
  }),
});
