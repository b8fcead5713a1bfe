/**
 * @module Event search endpoints (issue 34, docs/api.md#event-search): GET /api/v1/events with
 * filters and keyset paging, /histogram (matches over time) and /export (NDJSON or CSV, streamed).
 * Every read runs on the event-page reads pool within a read slot, never on ingest's connections.
 */
import { stringify } from 'csv-stringify/sync';
import type { ReadsPool } from '../../actors/reads-pool.ts';
import type { EventRecord } from '../../domain/event.ts';
import { decodeCursor, encodeCursor, type EventCursor } from '../../domain/event-search/cursor.ts';
import { isCountedScope, type EventFilter } from '../../domain/event-search/filter.ts';
import { AppError, validationError } from '../../errors.ts';
import { ErrorSchema } from '../../schemas/event-responses.ts';
import { isEventFilter, parseEventFilter } from '../../schemas/event-filter.ts';
import {
  EXPORT_DEFAULT_ROWS,
  ExportQuerySchema,
  HISTOGRAM_DEFAULT_BUCKETS,
  HISTOGRAM_MAX_BUCKETS,
  HistogramQuerySchema,
  HistogramSchema,
  SearchPageSchema,
  SearchQuerySchema,
} from '../../schemas/event-search.ts';
import { isPaging, parsePaging, toPage } from '../../schemas/paging.ts';
import { inSlot, type ReadSlots } from '../read-slots.ts';
import type { ChunkWriter, Reply } from '../reply.ts';
import type { Query, Request, Route } from '../route-types.ts';

export interface EventSearchDeps {
  readonly pages: ReadsPool;
  readonly pageSlots: ReadSlots;
  /** EVENT_EXPORT_MAX_ROWS: the most rows one export streams (default 1,000,000). */
  readonly exportMaxRows?: number;
  /** EVENT_SEARCH_COUNT_MS: how long a filtered total may count before it is estimated. */
  readonly searchCountMs?: number;
}

/** Past this offset a filtered search pages by cursor only (OFFSET reads every skipped match). */
export const MAX_FILTERED_OFFSET = 10_000;
/** Rows per read of an export: one keyset page of the reads pool, then one chunk written. */
const EXPORT_PAGE_ROWS = 1000;
const DEFAULT_COUNT_MS = 100;
/** The histogram's range when from is not given: the hour before `to`. */
const DEFAULT_HISTOGRAM_SPAN_MS = 3_600_000;

/** The prefix every event endpoint's 500 has (spec 7; test/http/health-down.test.ts). */
const failed = (message: string): AppError =>
  new AppError('INTERNAL', `Failed to process event: ${message}`);

/** The filter of a request, or its 400 naming every bad parameter. */
function filterOf(query: Query): EventFilter {
  const parsed = parseEventFilter(query);
  if (!isEventFilter(parsed)) throw validationError(parsed);
  return parsed;
}

const cursorAfter = (event: EventRecord): EventCursor => ({
  ts: Date.parse(event.timestamp),
  id: event.id,
});

async function search(deps: EventSearchDeps, req: Request): Promise<Reply> {
  const paging = parsePaging(req.query);
  const errors: Record<string, string> = isPaging(paging) ? {} : { ...paging };
  const parsed = parseEventFilter(req.query);
  if (!isEventFilter(parsed)) Object.assign(errors, parsed);
  const cursorText = req.query.get('cursor');
  const cursor = cursorText === null ? null : decodeCursor(cursorText);
  if (cursorText !== null && cursor === null) {
    errors.cursor = "cursor must be a previous answer's nextCursor, unchanged";
  }
  if (
    isPaging(paging) &&
    isEventFilter(parsed) &&
    cursor === null &&
    !isCountedScope(parsed) &&
    paging.page * paging.size > MAX_FILTERED_OFFSET
  ) {
    errors.page =
      `a filtered search pages by offset up to ${MAX_FILTERED_OFFSET} events; ` +
      'past that, follow nextCursor';
  }
  if (Object.keys(errors).length > 0 || !isPaging(paging) || !isEventFilter(parsed)) {
    throw validationError(errors);
  }
  const input = {
    filter: parsed,
    page: paging.page,
    size: paging.size,
    cursor,
    withTotal: true,
    countBudgetMs: deps.searchCountMs ?? DEFAULT_COUNT_MS,
  };
  const result = await inSlot(deps.pageSlots, req.principal, (release) =>
    deps.pages.run('searchEvents', input, release),
  );
  if (!result.ok) throw failed(result.message);
  const { rows, total, totalExact, more } = result.value;
  const last = rows.at(-1);
  return {
    status: 200,
    body: {
      ...toPage(rows, total, paging),
      totalElementsExact: totalExact,
      nextCursor: more && last !== undefined ? encodeCursor(cursorAfter(last)) : null,
    },
  };
}

const INTEGER = /^\+?\d{1,9}$/;

function histogramBuckets(query: Query): number {
  const raw = query.get('buckets');
  if (raw === null) return HISTOGRAM_DEFAULT_BUCKETS;
  const n = Number(raw);
  if (!INTEGER.test(raw) || n < 1 || n > HISTOGRAM_MAX_BUCKETS) {
    throw validationError({
      buckets: `buckets must be an integer from 1 to ${HISTOGRAM_MAX_BUCKETS}`,
    });
  }
  return n;
}

async function histogram(deps: EventSearchDeps, req: Request): Promise<Reply> {
  const filter = filterOf(req.query);
  const wanted = histogramBuckets(req.query);
  const to = filter.to ?? req.receivedAt;
  const from = filter.from ?? to - DEFAULT_HISTOGRAM_SPAN_MS;
  if (from >= to) throw validationError({ from: 'from must be earlier than to (default: now)' });
  // Whole seconds: a bucket start reads as a plain time, and the count of buckets stays bounded.
  const bucketMs = Math.max(1000, Math.ceil((to - from) / wanted / 1000) * 1000);
  const buckets = Math.ceil((to - from) / bucketMs);
  const input = { filter, from, bucketMs, buckets };
  const result = await inSlot(deps.pageSlots, req.principal, (release) =>
    deps.pages.run('eventHistogram', input, release),
  );
  if (!result.ok) throw failed(result.message);
  return {
    status: 200,
    body: {
      from: new Date(from).toISOString(),
      to: new Date(from + buckets * bucketMs).toISOString(),
      timeField: filter.timeField,
      bucketMs,
      buckets: result.value.map((count, i) => ({
        start: new Date(from + i * bucketMs).toISOString(),
        count,
      })),
    },
  };
}

type ExportFormat = 'ndjson' | 'csv';

const CSV_COLUMNS = [
  'eventId',
  'eventType',
  'timestamp',
  'source',
  'userId',
  'sessionId',
  'severity',
  'tags',
  'metadata',
  'receivedAt',
  'processingLatencyMs',
  'error',
] as const;

const csvRow = (e: EventRecord): unknown[] =>
  CSV_COLUMNS.map((c) =>
    c === 'tags' || c === 'metadata' ? JSON.stringify(e[c]) : (e[c] as unknown),
  );

function exportChunk(format: ExportFormat, rows: readonly EventRecord[]): string {
  if (format === 'csv') return stringify(rows.map(csvRow));
  let text = '';
  for (const row of rows) text += `${JSON.stringify(row)}\n`;
  return text;
}

interface ExportSummary {
  rows: number;
  limit: number;
  truncated: boolean;
  complete: boolean;
  error?: string;
}

/** The last line: NDJSON, an object of its own; CSV, a comment line of key=value pairs. */
function summaryLine(format: ExportFormat, summary: ExportSummary): string {
  if (format === 'ndjson') return `${JSON.stringify({ exportSummary: summary })}\n`;
  const pairs = Object.entries(summary).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return `# exportSummary ${pairs.join(' ')}\n`;
}

function exportOptions(query: Query, cap: number): { format: ExportFormat; limit: number } {
  const errors: Record<string, string> = {};
  const formatText = query.get('format') ?? 'ndjson';
  if (formatText !== 'ndjson' && formatText !== 'csv')
    errors.format = "format must be 'ndjson' or 'csv'";
  const limitText = query.get('limit');
  let limit = Math.min(EXPORT_DEFAULT_ROWS, cap);
  if (limitText !== null) {
    if (!INTEGER.test(limitText) || Number(limitText) < 1) {
      errors.limit = 'limit must be an integer >= 1';
    } else limit = Math.min(Number(limitText), cap);
  }
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return { format: formatText as ExportFormat, limit };
}

/**
 * Streams the matches page by page (keyset), each page read only once the previous chunk has been
 * taken by the client's socket: memory stays one page whatever the export's size. It holds one
 * event-page read slot for its whole length.
 */
function exportEvents(deps: EventSearchDeps, req: Request): Reply {
  const filter = filterOf(req.query);
  const { format, limit } = exportOptions(req.query, deps.exportMaxRows ?? 1_000_000);
  const release = deps.pageSlots.take(req.principal);
  const produce = async (out: ChunkWriter): Promise<void> => {
    const summary: ExportSummary = { rows: 0, limit, truncated: false, complete: true };
    /** Settles once the last read has really ended (a read may outlive its deadline). */
    let lastRead: Promise<void> = Promise.resolve();
    try {
      if (format === 'csv' && !(await out.write(stringify([[...CSV_COLUMNS]])))) {
        return;
      }
      let cursor: EventCursor | null = null;
      for (;;) {
        const size = Math.min(EXPORT_PAGE_ROWS, limit - summary.rows);
        let settle = (): void => undefined;
        lastRead = new Promise((resolve) => (settle = resolve));
        const input = { filter, page: 0, size, cursor, withTotal: false, countBudgetMs: 0 };
        const result = await deps.pages.run('searchEvents', input, settle);
        if (!result.ok) {
          summary.complete = false;
          summary.error = result.message;
          break;
        }
        const { rows, more } = result.value;
        summary.rows += rows.length;
        if (rows.length > 0 && !(await out.write(exportChunk(format, rows)))) return;
        const last = rows.at(-1);
        if (!more || last === undefined) break;
        if (summary.rows >= limit) {
          summary.truncated = true;
          break;
        }
        cursor = cursorAfter(last);
      }
      await out.write(summaryLine(format, summary));
    } catch (error) {
      // A full reads queue, say: the rows so far are whole, the summary says it stopped.
      summary.complete = false;
      summary.error = error instanceof Error ? error.message : String(error);
      await out.write(summaryLine(format, summary));
    } finally {
      void lastRead.then(release);
    }
  };
  const name = `events.${format}`;
  return {
    status: 200,
    headers: { 'Content-Disposition': `attachment; filename="${name}"` },
    stream: {
      contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson',
      produce,
      cancel: release,
    },
  };
}

const errors = { 400: ErrorSchema, 429: ErrorSchema, 500: ErrorSchema, 503: ErrorSchema };

/** Listed before /api/v1/events/:eventId, whose pattern would take /histogram and /export. */
export const eventSearchRoutes = (deps: EventSearchDeps): Route[] => [
  {
    method: 'GET',
    path: '/api/v1/events',
    scope: 'read',
    body: 'none',
    doc: {
      summary:
        'Events, newest first; optional filters, keyset paging (cursor / nextCursor); ' +
        'totalElementsExact false: totalElements is an estimate (docs/api.md#event-search)',
      query: SearchQuerySchema,
      responses: { 200: SearchPageSchema, ...errors },
    },
    handle: (req) => search(deps, req),
  },
  {
    method: 'GET',
    path: '/api/v1/events/histogram',
    scope: 'read',
    body: 'none',
    doc: {
      summary: 'Matches of the same filters per time bucket (default: the last hour, 60 buckets)',
      query: HistogramQuerySchema,
      responses: { 200: HistogramSchema, ...errors },
    },
    handle: (req) => histogram(deps, req),
  },
  {
    method: 'GET',
    path: '/api/v1/events/export',
    scope: 'read',
    body: 'none',
    doc: {
      summary:
        'The matches of the same filters, streamed as NDJSON or CSV, newest first; the last ' +
        'line is a summary (rows, truncated, complete)',
      query: ExportQuerySchema,
      mediaType: ['application/x-ndjson', 'text/csv'],
      responses: { 200: 'NDJSON lines (Event), or CSV with a header row', ...errors },
    },
    // A promise: the adapter then watches for the client going away while the export streams.
    handle: (req) => Promise.resolve().then(() => exportEvents(deps, req)),
  },
];
