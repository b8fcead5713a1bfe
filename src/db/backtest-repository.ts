/**
 * @module The backtest's reads (its own worker thread, its own connection): the stored events of a
 * range in receipt order, in bounded chunks. Keyset paging on (received_at, id) over the
 * events_received_id index: each chunk is one short indexed query, no transaction or cursor is
 * held between them, and the thread holds one chunk at a time.
 */
import type { DetailedMetricEvent, MetricEvent, Severity } from '../domain/event.ts';
import type { Sql } from './connect.ts';

/** Rows per query: a few hundred KB in memory, and the index walk resumes where it stopped. */
export const BACKTEST_CHUNK_ROWS = 5000;

interface Row {
  id: string;
  /** With `detail` only (PATTERN rules). */
  session_id?: string | null;
  tags?: Record<string, string>;
  metadata?: Record<string, unknown>;
  event_type: string;
  source: string;
  user_id: string | null;
  severity: Severity;
  received_ms: number;
  processing_latency_ms: number;
}

const at = (ms: number): string => new Date(ms).toISOString();

/**
 * The events received in [from, to), oldest first, then by id; `detail`: with the id, session,
 * tags and metadata PATTERN rules read (DetailedMetricEvent), as the live actor gets them.
 */
export async function* eventsReceived(
  sql: Sql,
  from: number,
  to: number,
  detail = false,
  chunkRows = BACKTEST_CHUNK_ROWS,
): AsyncGenerator<MetricEvent[]> {
  const extra = detail ? sql`, session_id, tags, metadata` : sql``;
  const toEvent = detail ? toDetailedEvent : toMetricEvent;
  let lastId: string | null = null;
  for (;;) {
    const rows: Row[] =
      lastId === null
        ? await sql<Row[]>`
          SELECT id, event_type, source, user_id, severity, processing_latency_ms,
                 (extract(epoch FROM received_at) * 1000)::float8 AS received_ms ${extra}
          FROM events WHERE received_at >= ${at(from)} AND received_at < ${at(to)}
          ORDER BY received_at, id LIMIT ${chunkRows}`
        : // The last row's own received_at, read back exactly (no ms rounding of the key).
          await sql<Row[]>`
          SELECT id, event_type, source, user_id, severity, processing_latency_ms,
                 (extract(epoch FROM received_at) * 1000)::float8 AS received_ms ${extra}
          FROM events
          WHERE (received_at, id) > ((SELECT received_at FROM events WHERE id = ${lastId}),
                                     ${lastId}::int8)
            AND received_at < ${at(to)}
          ORDER BY received_at, id LIMIT ${chunkRows}`;
    if (rows.length === 0) return;
    yield rows.map(toEvent);
    if (rows.length < chunkRows) return;
    lastId = (rows.at(-1) as Row).id;
  }
}

const toMetricEvent = (row: Row): MetricEvent => ({
  eventType: row.event_type,
  source: row.source,
  userId: row.user_id,
  severity: row.severity,
  receivedAt: row.received_ms,
  latencyMs: row.processing_latency_ms,
});

const toDetailedEvent = (row: Row): DetailedMetricEvent => ({
  ...toMetricEvent(row),
  id: Number(row.id),
  sessionId: row.session_id ?? null,
  tags: row.tags ?? {},
  metadata: row.metadata ?? {},
});
