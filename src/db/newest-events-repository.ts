/**
 * @module The newest stored events per producer (storage workers), read when the metrics actor
 * (re)starts so that producer-silent metrics survive it. Cheap on a table of millions of rows: the
 * newest event by the primary key; per type, one probe of events_type_ts_id each; per source (no
 * index: one would slow every insert), the newest SOURCE_SCAN_ROWS events only.
 */
import type { KeyLookup, NewestEvents } from '../domain/metrics/state/last-event-times.ts';
import type { Sql } from './connect.ts';

/** How many of the newest events are scanned for sources; an older source counts as unseen. */
export const SOURCE_SCAN_ROWS = 100_000;

const RECEIVED_MS = '(extract(epoch FROM received_at) * 1000)::float8';

export async function newestEvents(sql: Sql, lookup: KeyLookup): Promise<NewestEvents> {
  const received = sql.unsafe(RECEIVED_MS);
  const [newest] = await sql<{ id: string; ms: number }[]>`
    SELECT id, ${received} AS ms FROM events ORDER BY id DESC LIMIT 1`;
  if (newest === undefined) return { all: null, types: [], sources: [] };
  // The type's event with the latest timestamp: its receipt time (the index orders by timestamp).
  const types =
    lookup.types.length === 0
      ? []
      : await sql<{ key: string; ms: number }[]>`
        SELECT t.key, e.ms FROM unnest(${lookup.types as string[]}::text[]) AS t(key)
        CROSS JOIN LATERAL (
          SELECT ${received} AS ms FROM events WHERE event_type = t.key
          ORDER BY ts DESC, id DESC LIMIT 1
        ) e`;
  const sources =
    lookup.sources.length === 0
      ? []
      : await sql<{ key: string; ms: number }[]>`
        SELECT source AS key, max(${received}) AS ms FROM events
        WHERE id > ${Number(newest.id) - SOURCE_SCAN_ROWS}
          AND source = ANY(${lookup.sources as string[]}::text[])
        GROUP BY source`;
  return {
    all: newest.ms,
    types: types.map((row) => [row.key, row.ms] as const),
    sources: sources.map((row) => [row.key, row.ms] as const),
  };
}
