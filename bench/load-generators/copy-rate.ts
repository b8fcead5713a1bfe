/**
 * PostgreSQL's own bulk rate in the same run, the floor of batched ingest: the bench's events
 * streamed with COPY FROM STDIN into a scratch copy of the events table (its columns, defaults and
 * indexes, logged as events is), timed to the COPY's end (its COMMIT), then dropped.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type postgres from 'postgres';
import { copyText } from './copy-seed.ts';

export interface CopyRate {
  readonly rows: number;
  readonly seconds: number;
  readonly rowsPerSec: number;
}

interface BodyEvent {
  eventType: string;
  timestamp: string;
  source: string;
  userId?: string;
  sessionId?: string;
  severity?: string;
  tags?: unknown;
  metadata?: unknown;
}

const nullable = (value: string | undefined): string =>
  value === undefined ? '\\N' : copyText(value);

/** One COPY text line per request body (a single event's JSON, as POST /api/v1/events takes). */
function copyLine(body: string): string {
  const e = JSON.parse(body) as BodyEvent;
  return (
    `${copyText(e.eventType)}\t${e.timestamp}\t${copyText(e.source)}\t${nullable(e.userId)}\t` +
    `${nullable(e.sessionId)}\t${e.severity ?? 'INFO'}\t${copyText(JSON.stringify(e.tags ?? {}))}\t` +
    `${copyText(JSON.stringify(e.metadata ?? {}))}\t${new Date().toISOString()}\t0\n`
  );
}

function* chunks(lines: readonly string[], rows: number): Generator<string> {
  const perChunk = 1000;
  for (let done = 0; done < rows; done += perChunk) {
    let chunk = '';
    for (let i = done; i < Math.min(rows, done + perChunk); i++) {
      chunk += lines[i % lines.length] as string;
    }
    yield chunk;
  }
}

/** COPYs `rows` rows, the `bodies` in turn, into a scratch copy of events; the table is dropped. */
export async function copyRate(
  sql: postgres.Sql,
  bodies: readonly string[],
  rows: number,
): Promise<CopyRate> {
  const lines = bodies.map(copyLine);
  const table = `bench_copy_${randomBytes(4).toString('hex')}`;
  await sql`CREATE TABLE ${sql(table)} (LIKE events INCLUDING DEFAULTS INCLUDING INDEXES)`;
  try {
    const started = performance.now();
    const copy = await sql`
      COPY ${sql(table)} (event_type, ts, source, user_id, session_id, severity, tags, metadata,
                          received_at, processing_latency_ms) FROM STDIN`.writable();
    await pipeline(Readable.from(chunks(lines, rows)), copy);
    const seconds = (performance.now() - started) / 1000;
    return { rows, seconds, rowsPerSec: rows / seconds };
  } finally {
    await sql`DROP TABLE IF EXISTS ${sql(table)}`;
  }
}
