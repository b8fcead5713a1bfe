/**
 * @module The stored events a PATTERN rule test replays (storage workers): those of the last hour
 * by timestamp (the events_type_ts_id / events_ts_id indexes), of the types the rule reads, in
 * commit order (id), at most `limit`, read through a cursor so that memory stays one page.
 */
import type { DetailedMetricEvent } from '../domain/event.ts';
import { COLUMNS, type EventRow } from './events-repository.ts';
import type { Sql } from './connect.ts';

const PAGE = 2000;

/** Calls `each` per event, oldest first; answers how many were read. */
export async function replayEvents(
  sql: Sql,
  input: {
    readonly types: readonly string[] | null;
    readonly since: number;
    readonly limit: number;
  },
  each: (event: DetailedMetricEvent) => void,
  /** Awaited after each page: where the caller may pause, to bound the replay's share of CPU. */
  betweenPages: () => Promise<void> = () => Promise.resolve(),
): Promise<number> {
  const since = new Date(input.since);
  const byType =
    input.types === null ? sql`` : sql`AND event_type = ANY(${input.types as string[]}::text[])`;
  let read = 0;
  const cursor = sql<EventRow[]>`
    SELECT ${COLUMNS(sql)} FROM events WHERE ts >= ${since} ${byType}
    ORDER BY id LIMIT ${input.limit}`.cursor(PAGE);
  for await (const rows of cursor) {
    for (const r of rows) {
      read++;
      each({
        id: Number(r.id),
        eventType: r.event_type,
        source: r.source,
        userId: r.user_id,
        sessionId: r.session_id,
        severity: r.severity,
        tags: r.tags,
        metadata: r.metadata,
        receivedAt: r.received_ms,
        latencyMs: r.processing_latency_ms,
      });
    }
    await betweenPages();
  }
  return read;
}
