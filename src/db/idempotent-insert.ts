/**
 * @module Idempotent ingest SQL (issue 22, storage workers): the insert of a batch in which some
 * events carry an idempotency key, and the pruning of keys past the window. A key row commits in
 * the same statement as its event, so after any crash a key is stored if and only if its event is.
 */
import { createHash } from 'node:crypto';
import type { NewEvent } from '../domain/event.ts';
import type { InsertOutcome } from '../domain/idempotency.ts';
import type { Sql, Tx } from './connect.ts';
import { eventColumns } from './events-repository.ts';

/** How a key is stored, as the second statement reads it back for the events not stored now. */
interface StoredKey {
  readonly producer: string;
  readonly key: string;
  readonly event_id: string;
  readonly ts_ms: number;
  readonly hash: string;
}

const keyOf = (producer: number | string, key: string): string => `${producer} ${key}`;

/**
 * sha256 (hex) of the event's fields as sent: its JSON as the request parsed it (object keys in
 * the order sent, which a resend of the same request keeps), without the receipt time nor a
 * timestamp the server filled in. Three JSON texts in a row: each ends where it must, so no two
 * bodies give the same input. Hashed here rather than in PostgreSQL, whose jsonb parse of the
 * body a second time cost about 9 µs per event, on the server every write waits for.
 */
function bodyHash(e: NewEvent, tags: string, metadata: string): string {
  const timestamp = e.idempotency?.timestampGiven === true ? e.timestamp : null;
  const fields = [e.eventType, timestamp, e.source, e.userId, e.sessionId, e.severity];
  return createHash('sha256')
    .update(JSON.stringify(fields))
    .update(tags)
    .update(metadata)
    .digest('hex');
}

/**
 * Stores the events of a batch holding idempotency keys, one outcome per event in input order.
 *
 * Statement 1 claims each distinct (producer, key) once, in (producer, key) order, with INSERT ..
 * ON CONFLICT DO NOTHING, and stores the events whose claim succeeded plus those without a key;
 * the page counts are counted in SQL from what was really stored. A key another transaction
 * holds uncommitted makes the claim wait for that transaction: committed, the claim does nothing
 * (this event is a repeat); rolled back, the claim succeeds. Claims in one order across all
 * batches cannot deadlock, and a key repeated inside the batch is claimed by its first event only.
 *
 * Statement 2 (only when some keyed event was not stored) reads the stored keys in a fresh
 * snapshot, which sees the commits statement 1 waited for: same body hash, a repeat with the
 * first event's id and timestamp; another hash, the key was reused for a different event.
 */
export async function insertKeyedEvents(
  sql: Sql | Tx,
  events: readonly NewEvent[],
  writtenAt: number,
): Promise<InsertOutcome[]> {
  const c = eventColumns(events, writtenAt);
  const producers = events.map((e) => e.idempotency?.producer ?? null);
  const keys = events.map((e) => e.idempotency?.key ?? null);
  // 0/1: postgres.js cannot send a boolean array.
  const hashes = events.map((e, i) =>
    e.idempotency === undefined ? null : bodyHash(e, c.tags[i] as string, c.metadata[i] as string),
  );
  const rows = await sql<{ id: string | null }[]>`
    WITH input AS MATERIALIZED (
      SELECT t.*, decode(t.hash, 'hex') AS body_hash
      FROM unnest(
        ${c.types}::text[], ${c.stamps}::float8[], ${c.sources}::text[], ${c.users}::text[],
        ${c.sessions}::text[], ${c.severities}::text[], ${c.tags}::text[], ${c.metadata}::text[],
        ${c.received}::float8[], ${c.latencies}::int4[], ${producers}::int8[], ${keys}::text[],
        ${hashes}::text[]
      ) WITH ORDINALITY AS t(event_type, ts_ms, source, user_id, session_id, severity, tags,
                             metadata, received_ms, latency_ms, producer, idem_key, hash, ord)
    ), firsts AS (
      SELECT DISTINCT ON (producer, idem_key) ord, producer, idem_key, ts_ms, body_hash
      FROM input WHERE idem_key IS NOT NULL
      ORDER BY producer, idem_key, ord
    ), claimed AS (
      INSERT INTO idempotency_keys (producer, key, event_id, ts_ms, body_hash, created_at)
      SELECT producer, idem_key, nextval('events_id_seq'), ts_ms, body_hash,
             to_timestamp(${writtenAt}::float8 / 1000.0)
      FROM firsts ORDER BY producer, idem_key
      ON CONFLICT (producer, key) DO NOTHING
      RETURNING producer, key, event_id
    ), placed AS MATERIALIZED (
      SELECT i.*, CASE WHEN i.idem_key IS NULL THEN nextval('events_id_seq') ELSE w.event_id END
                  AS id
      FROM input i LEFT JOIN (
        SELECT f.ord, c.event_id FROM claimed c
        JOIN firsts f ON f.producer = c.producer AND f.idem_key = c.key
      ) w ON w.ord = i.ord
    ), inserted AS (
      INSERT INTO events (id, event_type, ts, source, user_id, session_id, severity, tags,
                          metadata, received_at, processing_latency_ms)
      SELECT id, event_type, to_timestamp(ts_ms / 1000.0), source, user_id, session_id, severity,
             tags::jsonb, metadata::jsonb, to_timestamp(received_ms / 1000.0), latency_ms
      FROM placed WHERE id IS NOT NULL
    ), counted AS (
      INSERT INTO event_count_deltas (event_types, seconds, counts)
      SELECT array_agg(event_type), array_agg(s), array_agg(n) FROM (
        SELECT event_type, floor(ts_ms / 1000)::int8 AS s, count(*) AS n
        FROM placed WHERE id IS NOT NULL GROUP BY 1, 2
      ) g
      HAVING count(*) > 0
    )
    SELECT id FROM placed ORDER BY ord`;
  const outcomes = new Array<InsertOutcome>(rows.length);
  const waiting: number[] = [];
  rows.forEach((row, i) => {
    if (row.id !== null) outcomes[i] = Number(row.id);
    else waiting.push(i);
  });
  if (waiting.length === 0) return outcomes;
  const claims = waiting.map((i) => events[i]?.idempotency);
  const stored = await sql<StoredKey[]>`
    SELECT producer, key, event_id, ts_ms, encode(body_hash, 'hex') AS hash
    FROM idempotency_keys
    WHERE (producer, key) IN (
      SELECT * FROM unnest(${claims.map((k) => k?.producer ?? null)}::int8[],
                           ${claims.map((k) => k?.key ?? null)}::text[]))`;
  const byKey = new Map(stored.map((s) => [keyOf(s.producer, s.key), s]));
  for (const i of waiting) {
    const claim = events[i]?.idempotency;
    const first = claim === undefined ? undefined : byKey.get(keyOf(claim.producer, claim.key));
    // Pruned between the two statements (a key at the very end of its window): in doubt, so
    // the batch fails and the producer's retry stores the event anew.
    if (first === undefined) throw new Error('an idempotency key expired while it was repeated');
    const id = Number(first.event_id);
    outcomes[i] =
      first.hash === hashes[i]
        ? { kind: 'repeat', id, timestamp: first.ts_ms }
        : { kind: 'key-reused', id };
  }
  return outcomes;
}

/**
 * Deletes at most `limit` keys stored before `before` (epoch ms), oldest first, and answers how
 * many: each run's work is bounded, and a caller that got `limit` back runs again.
 */
export async function pruneIdempotencyKeys(
  sql: Sql,
  before: number,
  limit: number,
): Promise<number> {
  const result = await sql`
    DELETE FROM idempotency_keys WHERE (producer, key) IN (
      SELECT producer, key FROM idempotency_keys
      WHERE created_at < to_timestamp(${before}::float8 / 1000.0)
      ORDER BY created_at LIMIT ${limit}
    )`;
  return result.count;
}
