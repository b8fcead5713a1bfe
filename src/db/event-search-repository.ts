/**
 * @module Event search SQL (reads workers, issue 34): the filtered page with keyset (cursor) or
 * offset paging, its total (exact when cheap, otherwise an estimate marked as one), and the
 * histogram of matches over time. Parameterised queries only; every read leaves out events older
 * than the retention's kept_from, as the spec's pages do (events-repository.ts).
 */
import type postgres from 'postgres';
import type { HistogramInput, SearchInput, SearchPage } from '../domain/event-search/search.ts';
import { isCountedScope, type EventFilter, type Scalar } from '../domain/event-search/filter.ts';
import type { Sql } from './connect.ts';
import { COLUMNS, listEvents, toRecord, type EventRow } from './events-repository.ts';

/**
 * Up to this many matches a filtered search counts them (exact); past it, the planner's estimate.
 * 1,000 is 50 pages of 20: past that, the page number a reader sees is an estimate anyway. A filter
 * tested row by row (`tag.`, `q`) reads rows / selectivity to count, so 10,000 cost a common tag
 * (1 event in 9) its p99 in bench:events-query; 1,000 cost a tenth of that.
 */
export const EXACT_COUNT_MAX = 1_000;

type Fragment = postgres.PendingQuery<postgres.Row[]>;

/** A time in epoch ms as timestamptz; through float8, so no year is misread (COLUMNS says why). */
const instant = (sql: Sql, ms: number): Fragment => sql`to_timestamp(${ms}::float8 / 1000)`;

/** `['a','b'], 5` -> {"a":{"b":5}}: the containment that a metadata path equals a scalar. */
const nested = (path: readonly string[], value: Scalar): unknown =>
  path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);

function qCondition(sql: Sql, q: string, field: EventFilter['qField']): Fragment {
  const has = (column: Fragment): Fragment => sql`strpos(lower(${column}), lower(${q})) > 0`;
  switch (field) {
    case null:
      return sql`(${has(sql`event_type`)} OR ${has(sql`source`)})`;
    case 'eventType':
      return has(sql`event_type`);
    case 'source':
      return has(sql`source`);
    case 'userId':
      return has(sql`coalesce(user_id, '')`);
    case 'sessionId':
      return has(sql`coalesce(session_id, '')`);
    case 'metadata':
      return has(sql`metadata::text`);
    case 'tags':
      return has(sql`tags::text`);
  }
}

/**
 * A JSON value as jsonb, sent as text: a parameter the server types jsonb would be serialised by
 * the driver again (a JSON string holding the text, which contains nothing).
 */
const json = (sql: Sql, value: unknown): Fragment => sql`${JSON.stringify(value)}::text::jsonb`;

/** The WHERE conditions of a filter (and of the retention), joined with AND. */
export function whereOf(sql: Sql, f: EventFilter, prefixed: readonly string[] | null): Fragment {
  const time = f.timeField === 'timestamp' ? sql`ts` : sql`received_at`;
  const conditions: Fragment[] = [sql`ts >= (SELECT kept_from FROM event_retention)`];
  if (f.from !== null) conditions.push(sql`${time} >= ${instant(sql, f.from)}`);
  if (f.to !== null) conditions.push(sql`${time} < ${instant(sql, f.to)}`);
  if (f.eventType !== null) conditions.push(sql`event_type = ${f.eventType}`);
  if (f.eventTypePrefix !== null) {
    // The types the prefix names, as constants: the planner then weighs each on the (event_type,
    // ts) index by its statistics; a text condition on event_type would read the ts index alone.
    conditions.push(
      prefixed === null
        ? sql`left(event_type, ${f.eventTypePrefix.length}) = ${f.eventTypePrefix}`
        : prefixed.length === 0
          ? sql`false`
          : sql`event_type IN ${sql(prefixed)}`,
    );
  }
  if (f.source !== null) conditions.push(sql`source = ${f.source}`);
  if (f.severities.length > 0) conditions.push(sql`severity IN ${sql(f.severities)}`);
  if (f.userId !== null) conditions.push(sql`user_id = ${f.userId}`);
  if (f.sessionId !== null) conditions.push(sql`session_id = ${f.sessionId}`);
  for (const [key, value] of f.tags) {
    conditions.push(sql`tags @> ${json(sql, { [key]: value })}`);
  }
  for (const { path, value } of f.metadata) {
    const exact = sql`metadata @> ${json(sql, nested(path, value))}`;
    // A number or boolean in the query matches it stored as such, or as the same text.
    conditions.push(
      value === null || typeof value === 'string'
        ? exact
        : sql`(${exact} OR metadata @> ${json(sql, nested(path, String(value)))})`,
    );
  }
  if (f.q !== null) conditions.push(qCondition(sql, f.q, f.qField));
  return conditions.reduce((all, c) => sql`${all} AND ${c}`);
}

/**
 * The stored event types that start with `prefix`: every stored event's type is in the count
 * tables, folded (event_counts) or still pending (event_count_deltas). null without a prefix.
 */
async function prefixedTypes(sql: Sql, f: EventFilter): Promise<string[] | null> {
  const prefix = f.eventTypePrefix;
  if (prefix === null) return null;
  const rows = await sql<{ t: string }[]>`
    SELECT DISTINCT event_type AS t FROM event_counts
    WHERE granularity = 'd' AND event_type <> '' AND left(event_type, ${prefix.length}) = ${prefix}
    UNION
    SELECT u.t FROM event_count_deltas x, unnest(x.event_types) AS u(t)
    WHERE left(u.t, ${prefix.length}) = ${prefix}`;
  return rows.map((r) => r.t);
}

/** The planner's estimate of the rows a filter matches (EXPLAIN: no row is read). */
async function estimate(sql: Sql, where: Fragment): Promise<number> {
  const [plan] = await sql<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }[]>`
    EXPLAIN (FORMAT JSON) SELECT 1 FROM events WHERE ${where}`;
  return Math.round(plan?.['QUERY PLAN'][0].Plan['Plan Rows'] ?? 0);
}

/** PostgreSQL's query_canceled: the count ran past its statement_timeout. */
const CANCELED = '57014';

/**
 * Counts up to EXACT_COUNT_MAX + 1 matches within `budgetMs` (a statement_timeout of its own: a
 * rare match without an index of its own would otherwise scan the whole table); past either, the
 * planner's estimate, marked as one. RESET then restores the connection's own statement_timeout,
 * and, after a cancel, is the completed statement the connection guard wants before reuse.
 */
async function filteredTotal(
  sql: Sql,
  where: Fragment,
  budgetMs: number,
): Promise<{ total: number; exact: boolean }> {
  let counted: number | null = null;
  await sql`SELECT set_config('statement_timeout', ${String(budgetMs)}, false)`;
  try {
    const [row] = await sql<{ n: string }[]>`
      SELECT count(*)::int8 AS n
      FROM (SELECT 1 FROM events WHERE ${where} LIMIT ${EXACT_COUNT_MAX + 1}) m`;
    counted = Number(row?.n ?? 0);
  } catch (error) {
    if ((error as { code?: unknown }).code !== CANCELED) throw error;
  } finally {
    await sql`RESET statement_timeout`;
  }
  if (counted !== null && counted <= EXACT_COUNT_MAX) return { total: counted, exact: true };
  return { total: Math.max(counted ?? 0, await estimate(sql, where)), exact: false };
}

/**
 * One page of matches in (timestamp desc, id desc) order. Without filters but an exact type, the
 * spec's page (events-repository.ts: exact total from the count tables, deep offsets by counts).
 */
export async function searchEvents(sql: Sql, input: SearchInput): Promise<SearchPage> {
  const { filter, page, size, cursor } = input;
  if (isCountedScope(filter) && cursor === null) {
    const counted = await listEvents(sql, filter.eventType, page, size);
    const more = (page + 1) * size < counted.total && counted.rows.length === size;
    return { rows: counted.rows, total: counted.total, totalExact: true, more };
  }
  const where = whereOf(sql, filter, await prefixedTypes(sql, filter));
  const after =
    cursor === null ? sql`` : sql`AND (ts, id) < (${instant(sql, cursor.ts)}, ${cursor.id}::int8)`;
  const rows = await sql<EventRow[]>`
    SELECT ${COLUMNS(sql)} FROM events WHERE ${where} ${after}
    ORDER BY ts DESC, id DESC LIMIT ${size + 1} OFFSET ${cursor === null ? page * size : 0}`;
  const more = rows.length > size;
  const records = rows.slice(0, size).map(toRecord);
  if (!input.withTotal) return { rows: records, total: 0, totalExact: false, more };
  if (isCountedScope(filter)) {
    const counted = await listEvents(sql, filter.eventType, 0, 1);
    return { rows: records, total: counted.total, totalExact: true, more };
  }
  // The last page of an offset read knows its total: no count (a rare value's count is the dearest,
  // reading the time index to the end for matches that the page has already found).
  if (!more && cursor === null && (records.length > 0 || page === 0)) {
    return { rows: records, total: page * size + records.length, totalExact: true, more };
  }
  const { total, exact } = await filteredTotal(sql, where, input.countBudgetMs);
  return { rows: records, total, totalExact: exact, more };
}

/** Matches per bucket (index = bucket number; empty buckets 0). */
export async function eventHistogram(sql: Sql, input: HistogramInput): Promise<number[]> {
  const { filter, from, bucketMs, buckets } = input;
  const ranged: EventFilter = { ...filter, from, to: from + bucketMs * buckets };
  const time = filter.timeField === 'timestamp' ? sql`ts` : sql`received_at`;
  const rows = await sql<{ b: number; n: string }[]>`
    SELECT floor(((extract(epoch FROM ${time}) * 1000)::float8 - ${from}::float8) / ${bucketMs}::float8)::int4 AS b,
           count(*)::int8 AS n
    FROM events WHERE ${whereOf(sql, ranged, await prefixedTypes(sql, filter))} GROUP BY 1`;
  const counts = new Array<number>(buckets).fill(0);
  for (const row of rows) if (row.b >= 0 && row.b < buckets) counts[row.b] = Number(row.n);
  return counts;
}
