// The plain group-commit insert (events-repository.ts) against PostgreSQL: the batch goes as one
// JSON text (json_to_recordset); every column comes back as given, nulls stay NULL, ids come
// back in the batch's order, and the page counts are pending for the fold.
import t from 'tap';
import type { NewEvent } from '../../src/domain/event.ts';
import { eventRowsJson, insertEvents } from '../../src/db/events-repository.ts';
import { createTestDatabase } from '../support/database.ts';
import { newEvent } from '../support/new-event.ts';

const db = await createTestDatabase(t);
const { sql } = db;
const AT = Date.UTC(2026, 10, 28, 12, 0, 0, 123);
/** newEvent(i) received just before AT: its latency fits processing_latency_ms (int4). */
const recent = (i: number): NewEvent => ({ ...newEvent(i), timestamp: AT - 2, receivedAt: AT - 3 });

const odd: NewEvent = {
  ...newEvent(0),
  eventType: 'quote " backslash \\ 😀 \u2028',
  source: '会话-セッション',
  timestamp: AT - 1,
  receivedAt: AT - 7,
  userId: 'u "1"',
  sessionId: null,
  severity: 'CRITICAL',
  tags: { 'line\nbreak': '\\u0000 is text', empty: '' },
  metadata: { n: [1, -2.5, 1e300, true, null], deep: { x: {} }, s: 'é' },
};

interface Row {
  id: string;
  event_type: string;
  ts_ms: number;
  source: string;
  user_id: string | null;
  session_id: string | null;
  severity: string;
  tags: unknown;
  metadata: unknown;
  received_ms: number;
  processing_latency_ms: number;
}

void t.test('a batch is stored column for column, ids in its order', async (t) => {
  const batch = [recent(1), odd, recent(2)];
  const ids = await insertEvents(sql, batch, AT);
  t.equal(ids.length, 3);
  t.ok((ids[0] as number) < (ids[1] as number) && (ids[1] as number) < (ids[2] as number));
  const rows = await sql<Row[]>`
    SELECT id, event_type, extract(epoch FROM ts)::float8 * 1000 AS ts_ms, source, user_id,
           session_id, severity, tags, metadata,
           extract(epoch FROM received_at)::float8 * 1000 AS received_ms, processing_latency_ms
    FROM events WHERE id = ANY(${ids}::int8[]) ORDER BY id`;
  t.same(
    rows.map((r) => r.metadata),
    batch.map((e) => e.metadata),
  );
  const stored = rows[1] as Row;
  t.match(stored, {
    event_type: odd.eventType,
    source: odd.source,
    user_id: odd.userId,
    session_id: null,
    severity: 'CRITICAL',
    processing_latency_ms: 7,
  });
  t.equal(Math.round(stored.ts_ms), AT - 1);
  t.equal(Math.round(stored.received_ms), AT - 7);
  t.same(stored.tags, odd.tags);
  t.equal((rows[0] as Row).user_id, null, 'null stays NULL');
});

void t.test('the batch text is JSON of the input columns', async (t) => {
  t.same(JSON.parse(eventRowsJson([odd], AT)), [
    {
      event_type: odd.eventType,
      ts_ms: AT - 1,
      source: odd.source,
      user_id: odd.userId,
      session_id: null,
      severity: 'CRITICAL',
      tags: odd.tags,
      metadata: odd.metadata,
      received_ms: AT - 7,
      latency_ms: 7,
    },
  ]);
});

void t.test('its page counts wait in event_count_deltas', async (t) => {
  const before = await pendingCount();
  await insertEvents(sql, [recent(3), recent(4)], AT);
  t.equal(await pendingCount(), before + 2);
});

async function pendingCount(): Promise<number> {
  const [row] = await sql<{ n: string | null }[]>`
    SELECT sum(c)::int8 AS n FROM event_count_deltas, unnest(counts) AS c`;
  return Number(row?.n ?? 0);
}
