/**
 * @module The metrics actor's checkpoint SQL (issue 33): it runs on the actor's own connection,
 * off the front thread. One row per owner, replaced; the stored events after a checkpoint's mark
 * are read back through a cursor, in (received_at, id) order on the events_received_id index.
 */
import type { DetailedMetricEvent, MetricEvent } from '../domain/event.ts';
import type { Sql } from './connect.ts';

export interface StoredCheckpoint {
  readonly format: number;
  readonly takenAt: number;
  readonly body: Uint8Array;
}

export async function saveCheckpoint(
  sql: Sql,
  owner: string,
  checkpoint: StoredCheckpoint & { readonly replayFrom: number },
): Promise<void> {
  await sql`
    INSERT INTO metrics_checkpoints (owner, format, taken_at, replay_from, body)
    VALUES (${owner}, ${checkpoint.format}, ${new Date(checkpoint.takenAt)},
            ${new Date(checkpoint.replayFrom)}, ${Buffer.from(checkpoint.body)})
    ON CONFLICT (owner) DO UPDATE SET format = EXCLUDED.format, taken_at = EXCLUDED.taken_at,
      replay_from = EXCLUDED.replay_from, body = EXCLUDED.body`;
}

export async function loadCheckpoint(sql: Sql, owner: string): Promise<StoredCheckpoint | null> {
  const [row] = await sql<{ format: number; taken_ms: number; body: Buffer }[]>`
    SELECT format, (extract(epoch FROM taken_at) * 1000)::float8 AS taken_ms, body
    FROM metrics_checkpoints WHERE owner = ${owner}`;
  return row === undefined ? null : { format: row.format, takenAt: row.taken_ms, body: row.body };
}

interface ReplayRow {
  id: string;
  event_type: string;
  source: string;
  user_id: string | null;
  severity: MetricEvent['severity'];
  received_ms: number;
  processing_latency_ms: number;
  /** With `detail` only. */
  session_id?: string | null;
  tags?: Record<string, string>;
  metadata?: Record<string, unknown>;
}

const PAGE = 5000;

/**
 * Calls `each` with the stored events received from `from` on (epoch ms), page by page, oldest
 * first, with their ids; answers how many were read. Events of partitions being dropped
 * (older than the retention's kept_from) are skipped, as every other read skips them. With
 * `detail` (a PATTERN rule's partitions were restored) they carry what PATTERN reads.
 */
export async function replayStoredEvents(
  sql: Sql,
  from: number,
  each: (events: MetricEvent[], ids: number[]) => void,
  detail = false,
): Promise<number> {
  let read = 0;
  const cursor = sql<ReplayRow[]>`
    SELECT id, event_type, source, user_id, severity, processing_latency_ms,
      (extract(epoch FROM received_at) * 1000)::float8 AS received_ms
      ${detail ? sql`, session_id, tags, metadata` : sql``}
    FROM events
    WHERE received_at >= ${new Date(from)} AND ts >= (SELECT kept_from FROM event_retention)
    ORDER BY received_at, id`.cursor(PAGE);
  for await (const rows of cursor) {
    const events: MetricEvent[] = [];
    const ids: number[] = [];
    for (const r of rows) {
      const id = Number(r.id);
      const metric: MetricEvent = {
        eventType: r.event_type,
        source: r.source,
        userId: r.user_id,
        severity: r.severity,
        receivedAt: r.received_ms,
        latencyMs: r.processing_latency_ms,
      };
      const detailed: DetailedMetricEvent | null = detail
        ? {
            ...metric,
            id,
            sessionId: r.session_id ?? null,
            tags: r.tags ?? {},
            metadata: r.metadata ?? {},
          }
        : null;
      events.push(detailed ?? metric);
      ids.push(id);
    }
    read += rows.length;
    each(events, ids);
  }
  return read;
}
