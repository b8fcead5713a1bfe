/**
 * @module Event SQL (storage workers): the group-commit insert, exact paging and lookup by id.
 * Parameterised queries only.
 */
import { isErrorSeverity, type Severity } from '../domain/event.ts';
import { eventIdOf } from '../domain/event-id.ts';
import type { EventPage, EventRecord, NewEvent } from '../domain/event.ts';
import type postgres from 'postgres';
import type { Sql, Tx } from './connect.ts';

/** Below this offset a plain OFFSET scan is cheap; above it we locate the page through counts. */
const DEEP_OFFSET = 5000;
/** '' stands for "all event types" in event_counts (a real type is never empty). */
const ALL_TYPES = '';
/** kept_from in seconds while every event is kept (-infinity): below any bucket, never overflows. */
const KEEP_ALL_SECONDS = -(2 ** 53);

/**
 * A batch's events counted per (type, second), as the columns of one event_count_deltas row. The
 * key puts the second first: a number holds no space, so no type can make two keys collide.
 */
function countsBySecond(events: readonly NewEvent[]): {
  types: string[];
  seconds: number[];
  counts: number[];
} {
  const index = new Map<string, number>();
  const types: string[] = [];
  const seconds: number[] = [];
  const counts: number[] = [];
  for (const e of events) {
    const second = Math.floor(e.timestamp / 1000);
    const key = `${second} ${e.eventType}`;
    const at = index.get(key);
    if (at !== undefined) counts[at] = (counts[at] as number) + 1;
    else {
      index.set(key, counts.length);
      types.push(e.eventType);
      seconds.push(second);
      counts.push(1);
    }
  }
  return { types, seconds, counts };
}

/** A batch's events as the column arrays that unnest() turns back into rows. */
export interface EventColumns {
  readonly types: string[];
  readonly stamps: number[];
  readonly sources: string[];
  readonly users: (string | null)[];
  readonly sessions: (string | null)[];
  readonly severities: string[];
  readonly tags: string[];
  readonly metadata: string[];
  readonly received: number[];
  readonly latencies: number[];
}

export function eventColumns(events: readonly NewEvent[], writtenAt: number): EventColumns {
  const n = events.length;
  const types = new Array<string>(n);
  const stamps = new Array<number>(n);
  const sources = new Array<string>(n);
  const users = new Array<string | null>(n);
  const sessions = new Array<string | null>(n);
  const severities = new Array<string>(n);
  const tags = new Array<string>(n);
  const metadata = new Array<string>(n);
  const received = new Array<number>(n);
  const latencies = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const e = events[i] as NewEvent;
    types[i] = e.eventType;
    stamps[i] = e.timestamp;
    sources[i] = e.source;
    users[i] = e.userId;
    sessions[i] = e.sessionId;
    severities[i] = e.severity;
    tags[i] = JSON.stringify(e.tags);
    metadata[i] = JSON.stringify(e.metadata);
    received[i] = e.receivedAt;
    latencies[i] = Math.max(0, writtenAt - e.receivedAt);
  }
  return {
    types,
    stamps,
    sources,
    users,
    sessions,
    severities,
    tags,
    metadata,
    received,
    latencies,
  };
}

/** Cluster mode: the batch's ingest_outbox row, written by the batch's own statement. */
export interface OutboxValues {
  readonly instanceId: string;
  readonly seq: number;
  /** batch-payload.ts idsPayloadHead: the statement appends the ids it draws. */
  readonly payloadHead: Uint8Array;
}

/**
 * A batch's rows as ONE JSON text for json_to_recordset: a single text parameter, sent as it is,
 * where ten array parameters each had every element escaped and quoted by the driver (arrayEscape
 * and the array serialiser were about a tenth of a storage worker's CPU under load). PostgreSQL's
 * CPU per row is the same either way (measured: docs/decisions.md, issue 35). The keys are the
 * input columns of insertEvents's statement; JSON null stays SQL NULL.
 */
export function eventRowsJson(events: readonly NewEvent[], writtenAt: number): string {
  const rows = new Array<EventRowJson>(events.length);
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as NewEvent;
    rows[i] = {
      event_type: e.eventType,
      ts_ms: e.timestamp,
      source: e.source,
      user_id: e.userId,
      session_id: e.sessionId,
      severity: e.severity,
      tags: e.tags,
      metadata: e.metadata,
      received_ms: e.receivedAt,
      latency_ms: Math.max(0, writtenAt - e.receivedAt),
    };
  }
  return JSON.stringify(rows);
}

interface EventRowJson {
  readonly event_type: string;
  readonly ts_ms: number;
  readonly source: string;
  readonly user_id: string | null;
  readonly session_id: string | null;
  readonly severity: Severity;
  readonly tags: Readonly<Record<string, string>>;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly received_ms: number;
  readonly latency_ms: number;
}

/**
 * One statement per batch (one implicit transaction, one round trip): ids are drawn in the input
 * CTE so they come back in request order, and the batch's page counts go in as one pending row
 * in the same statement (foldEventCounts adds them to event_counts later), as does its outbox row
 * in cluster mode. For batches without idempotency keys only (idempotent-insert.ts writes the
 * others). `::text::json`: typed text, the driver sends the string as it is (typed json, it would
 * serialise it again, into one JSON string).
 */
export async function insertEvents(
  sql: Sql | Tx,
  events: readonly NewEvent[],
  writtenAt: number,
  outbox?: OutboxValues,
): Promise<number[]> {
  const rowsJson = eventRowsJson(events, writtenAt);
  const pending = countsBySecond(events);
  const outboxed =
    outbox === undefined
      ? sql``
      : sql`, outboxed AS (
      INSERT INTO ingest_outbox (instance_id, batch_seq, payload)
      VALUES (${outbox.instanceId}, ${outbox.seq},
              ${Buffer.from(outbox.payloadHead.buffer, outbox.payloadHead.byteOffset, outbox.payloadHead.byteLength)}
              || (SELECT string_agg(int8send(id), ''::bytea ORDER BY ord) FROM input))
    )`;
  const rows = await sql<{ id: string }[]>`
    WITH input AS MATERIALIZED (
      SELECT nextval('events_id_seq') AS id, t.*
      FROM ROWS FROM (json_to_recordset(${rowsJson}::text::json) AS (
        event_type text, ts_ms float8, source text, user_id text, session_id text, severity text,
        tags jsonb, metadata jsonb, received_ms float8, latency_ms int4
      )) WITH ORDINALITY AS t(event_type, ts_ms, source, user_id, session_id, severity, tags,
                              metadata, received_ms, latency_ms, ord)
    ), inserted AS (
      INSERT INTO events (id, event_type, ts, source, user_id, session_id, severity, tags,
                          metadata, received_at, processing_latency_ms)
      SELECT id, event_type, to_timestamp(ts_ms / 1000.0), source, user_id, session_id, severity,
             tags, metadata, to_timestamp(received_ms / 1000.0), latency_ms
      FROM input
    ), counted AS (
      INSERT INTO event_count_deltas (event_types, seconds, counts)
      VALUES (${pending.types}::text[], ${pending.seconds}::int8[], ${pending.counts}::int8[])
    )${outboxed}
    SELECT id FROM input ORDER BY ord`;
  return rows.map((r) => Number(r.id));
}

/**
 * Moves every pending count row into event_counts (day, hour and second; per type and for all
 * types), in one statement: a reader's snapshot sees each batch's counts either still pending or
 * folded, never both. Two folds at once take disjoint rows (a deleted row is skipped), and upsert
 * in one order, so they wait for each other at worst.
 */
export async function foldEventCounts(sql: Sql): Promise<void> {
  await sql`
    WITH taken AS (
      DELETE FROM event_count_deltas RETURNING event_types, seconds, counts
    ), folded AS (
      SELECT k.event_type, k.granularity, k.bucket, sum(u.n) AS n
      FROM taken, unnest(taken.event_types, taken.seconds, taken.counts) AS u(event_type, s, n)
      CROSS JOIN LATERAL (VALUES
        (u.event_type, 'd'::"char", floor(u.s / 86400.0)::bigint),
        (u.event_type, 'h'::"char", floor(u.s / 3600.0)::bigint),
        (u.event_type, 's'::"char", u.s),
        (${ALL_TYPES}, 'd'::"char", floor(u.s / 86400.0)::bigint),
        (${ALL_TYPES}, 'h'::"char", floor(u.s / 3600.0)::bigint),
        (${ALL_TYPES}, 's'::"char", u.s)
      ) AS k(event_type, granularity, bucket)
      GROUP BY 1, 2, 3
    )
    INSERT INTO event_counts (event_type, granularity, bucket, shard, n)
    SELECT event_type, granularity, bucket, 0, n FROM folded
    -- One lock order for every fold: two folds sharing counter rows wait, never deadlock.
    ORDER BY 1, 2, 3
    ON CONFLICT (event_type, granularity, bucket, shard)
    DO UPDATE SET n = event_counts.n + EXCLUDED.n`;
}

/** An events row as COLUMNS reads it (also the PATTERN replay's, pattern-replay-repository.ts). */
export interface EventRow {
  id: string;
  event_type: string;
  ts_ms: number;
  source: string;
  user_id: string | null;
  session_id: string | null;
  severity: Severity;
  tags: Record<string, string>;
  metadata: Record<string, unknown>;
  received_ms: number;
  processing_latency_ms: number;
}

export const toRecord = (row: EventRow): EventRecord => {
  const id = Number(row.id);
  return {
    id,
    eventId: eventIdOf(id),
    eventType: row.event_type,
    timestamp: new Date(row.ts_ms).toISOString(),
    source: row.source,
    userId: row.user_id,
    sessionId: row.session_id,
    severity: row.severity,
    tags: row.tags,
    metadata: row.metadata,
    receivedAt: new Date(row.received_ms).toISOString(),
    processingLatencyMs: row.processing_latency_ms,
    error: isErrorSeverity(row.severity),
  };
};

/**
 * The columns of an EventRow. Times travel as epoch ms: postgres.js parses timestamptz text with
 * `new Date(text)`, which reads year 0050 as 1950 and a BC year as Invalid Date.
 */
export const COLUMNS = (sql: Sql | Tx): postgres.PendingQuery<postgres.Row[]> => sql`
  id, event_type, (extract(epoch FROM ts) * 1000)::float8 AS ts_ms, source, user_id, session_id,
  severity, tags, metadata, (extract(epoch FROM received_at) * 1000)::float8 AS received_ms,
  processing_latency_ms`;

/**
 * By id: one probe of each partition's primary key (id, ts); an event older than the retention's
 * kept_from (its partition is being dropped) is not found, as it is no longer paged nor counted.
 */
export async function getEvent(sql: Sql, id: number): Promise<EventRecord | null> {
  const rows = await sql<EventRow[]>`
    SELECT ${COLUMNS(sql)} FROM events
    WHERE id = ${id} AND ts >= (SELECT kept_from FROM event_retention)`;
  const row = rows[0];
  return row === undefined ? null : toRecord(row);
}

type PageRow = EventRow & { total: string };

/** The levels below a day: the parent CTE they sit in, and the pending columns that match. */
const LEVELS = {
  hours: { parent: 'd', grain: 'h', per: 24, pending: 'hour', pendingParent: 'day' },
  secs: { parent: 'h', grain: 's', per: 3600, pending: 's', pendingParent: 'hour' },
} as const;

/**
 * One level's count rows inside the bucket its parent found: the scope's folded rows and pending
 * ones, not grouped (a bucket may have several rows: writer shards, pending counts); `locate`
 * sums a bucket's rows together. The bounds are scalar subqueries, which the planner estimates as
 * a narrow range of the primary key: as a join on the parent it estimated a ninth of the level
 * and scanned all of event_counts (1.5 s at 10,000,000 events).
 */
function levelCounts(sql: Sql, scope: string, level: (typeof LEVELS)[keyof typeof LEVELS]) {
  const parent = sql(level.parent);
  return sql`
        SELECT x.bucket, x.n FROM event_counts x
        WHERE x.event_type = ${scope} AND x.granularity = ${level.grain}::"char"
          AND x.bucket BETWEEN (SELECT bucket * ${level.per}::int8 FROM ${parent})
                           AND (SELECT bucket * ${level.per}::int8 + ${level.per - 1}::int8 FROM ${parent})
        UNION ALL SELECT p.${sql(level.pending)}, p.n FROM pending p, ${parent}
        WHERE p.${sql(level.pendingParent)} = ${parent}.bucket`;
}

/**
 * The newest bucket of `counts` whose cumulative count (newest first) passes the offset left after
 * the parent's `before`, and how many events are newer than it. The RANGE frames sum all rows of
 * a bucket together (no GROUP BY), so rows stream in primary-key order into the window and the
 * walk stops at the bucket it looks for instead of reading the whole level.
 */
function locate(sql: Sql, counts: string, parent: string | null, offset: number) {
  const before = parent === null ? sql`0` : sql`${sql(parent)}.before`;
  return sql`
      SELECT c.bucket, ${before} + c.newer AS before
      FROM (
        SELECT bucket, sum(n) OVER newest AS upto,
               coalesce(sum(n) OVER (newest RANGE BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
                 AS newer
        FROM ${sql(counts)} WINDOW newest AS (ORDER BY bucket DESC)
      ) c ${parent === null ? sql`` : sql`, ${sql(parent)}`}
      WHERE c.upto > ${offset}::int8 - ${before} ORDER BY c.bucket DESC LIMIT 1`;
}

/**
 * A page in (timestamp desc, id desc) order with its exact total, in ONE statement (one snapshot,
 * one round trip): the total sums the day counts; a shallow page skips `offset` index entries; a
 * deep one walks day, hour, then second counts, and skips only within one second's events. Each
 * level adds the pending counts (not yet folded, about a second of ingest) of the scope. An
 * empty page still yields one row, carrying the total with null event columns. Events, pending
 * and folded counts older than the retention's kept_from (`kept`) are left out: their partitions
 * and count rows go later, and until then they must neither show nor count. kept_from is a UTC day
 * boundary, so a day bucket is either wholly kept or wholly not.
 */
export async function listEvents(
  sql: Sql,
  eventType: string | null,
  page: number,
  size: number,
): Promise<EventPage> {
  const scope = eventType ?? ALL_TYPES;
  const offset = page * size;
  const typeFilter = eventType === null ? sql`` : sql`AND event_type = ${eventType}`;
  const pendingFilter = eventType === null ? sql`` : sql`AND u.event_type = ${eventType}`;
  const pageRows =
    offset <= DEEP_OFFSET
      ? sql`
        SELECT ${COLUMNS(sql)} FROM events WHERE ts >= (SELECT at FROM kept) ${typeFilter}
        ORDER BY ts DESC, id DESC LIMIT ${size} OFFSET ${offset}`
      : sql`
        SELECT ${COLUMNS(sql)} FROM events
        WHERE ts < (SELECT to_timestamp((bucket + 1)::float8) FROM sec)
          AND ts >= (SELECT at FROM kept) ${typeFilter}
        ORDER BY ts DESC, id DESC
        LIMIT ${size} OFFSET (SELECT ${offset}::int8 - before FROM sec)`;
  const rows = await sql<PageRow[]>`
    WITH kept AS MATERIALIZED (
      SELECT at, s, floor(s / 86400.0)::int8 AS day FROM (
        SELECT kept_from AS at,
               CASE WHEN isfinite(kept_from) THEN floor(extract(epoch FROM kept_from))::int8
                    ELSE ${KEEP_ALL_SECONDS}::int8 END AS s
        FROM event_retention
      ) k
    ), pending AS MATERIALIZED (
      SELECT u.s, floor(u.s / 3600.0)::bigint AS hour, floor(u.s / 86400.0)::bigint AS day,
             sum(u.n) AS n
      FROM event_count_deltas x, unnest(x.event_types, x.seconds, x.counts) AS u(event_type, s, n)
      WHERE u.s >= (SELECT s FROM kept) ${pendingFilter}
      GROUP BY u.s
    ), days AS (
      SELECT bucket, n FROM event_counts WHERE event_type = ${scope} AND granularity = 'd'
        AND bucket >= (SELECT day FROM kept)
      UNION ALL SELECT day, n FROM pending
    ), total AS (
      SELECT coalesce(sum(n), 0)::int8 AS total FROM days
    ), d AS (${locate(sql, 'days', null, offset)}
    ), hours AS (${levelCounts(sql, scope, LEVELS.hours)}
    ), h AS (${locate(sql, 'hours', 'd', offset)}
    ), secs AS (${levelCounts(sql, scope, LEVELS.secs)}
    ), sec AS (${locate(sql, 'secs', 'h', offset)}
    )
    SELECT total.total, e.* FROM total LEFT JOIN LATERAL (${pageRows}) e ON true
    ORDER BY e.ts_ms DESC, e.id DESC`;
  const total = Number(rows[0]?.total ?? 0);
  const events = rows.filter((row) => row.id !== null).map(toRecord);
  return { rows: events, total };
}
