/**
 * Helpers for the event API tests: answers read and checked against the service's own response
 * schemas, raw bodies, and what the events tables really hold (read straight from PostgreSQL).
 */
import { FormatRegistry, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import {
  AckSchema,
  BatchResultSchema,
  ErrorSchema,
  EventPageSchema,
  EventSchema,
} from '../../src/schemas/event-responses.ts';
import type { TestDatabase } from './database.ts';
import { keyHeaders } from './keys.ts';

/** Instants as the API writes them: UTC, milliseconds, `Z` (DESIGN 2). */
const INSTANT = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/;
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => INSTANT.test(v));

export type Ack = Static<typeof AckSchema>;
export type ApiEvent = Static<typeof EventSchema>;
export type EventPage = Static<typeof EventPageSchema>;
export type BatchResult = Static<typeof BatchResultSchema>;
export type ErrorBody = Static<typeof ErrorSchema>;

const checks = new Map<TSchema, TypeCheck<TSchema>>();

/** The JSON body of `res`, which must satisfy `schema` (else this throws, naming what is wrong). */
export async function readAs<S extends TSchema>(schema: S, res: Response): Promise<Static<S>> {
  const text = await res.text();
  const contentType = res.headers.get('content-type');
  if (contentType !== 'application/json') {
    throw new Error(`expected application/json, got ${contentType}: ${text}`);
  }
  const body: unknown = JSON.parse(text);
  let check = checks.get(schema);
  if (check === undefined) {
    check = TypeCompiler.Compile<TSchema>(schema);
    checks.set(schema, check);
  }
  if (!check.Check(body)) {
    const problems = [...check.Errors(body)].map((e) => `${e.path || '/'}: ${e.message}`);
    throw new Error(
      `HTTP ${res.status} body does not match its schema (${problems.join('; ')}): ${text}`,
    );
  }
  return body;
}

/** The assertions these helpers make; tap's `t` has them. */
export interface Assert {
  equal(found: unknown, wanted: unknown, message: string): boolean;
  same(found: unknown, wanted: unknown, message: string): boolean;
}

/**
 * Asserts an error answer (DESIGN 7): its status, `code`, and exactly the fields named in
 * `errors` (none when `fields` is undefined).
 */
export async function expectError(
  t: Assert,
  res: Response,
  status: number,
  code: string,
  fields?: readonly string[],
): Promise<ErrorBody> {
  t.equal(res.status, status, `status ${status}`);
  const body = await readAs(ErrorSchema, res);
  t.equal(body.status, 'error', 'status error');
  t.equal(body.code, code, `code ${code}`);
  if (fields === undefined) t.equal(body.errors, undefined, 'no field errors');
  else
    t.same(
      Object.keys(body.errors ?? {}).sort(),
      [...fields].sort(),
      'errors name exactly the failing fields',
    );
  return body;
}

export const readAck = (res: Response): Promise<Ack> => readAs(AckSchema, res);
export const readEvent = (res: Response): Promise<ApiEvent> => readAs(EventSchema, res);
export const readPage = (res: Response): Promise<EventPage> => readAs(EventPageSchema, res);
export const readBatch = (res: Response): Promise<BatchResult> => readAs(BatchResultSchema, res);

/** The table id of an eventId the service returned (`evt_42` -> 42). */
export const idOf = (eventId: string): number => {
  if (!/^evt_[1-9][0-9]*$/.test(eventId)) throw new Error(`not an eventId: ${eventId}`);
  return Number(eventId.slice(4));
};

export interface HttpTarget {
  readonly base: string;
}

/** POST with exactly this body and Content-Type (none when null; a byte body gets no default). */
export const postRaw = (
  target: HttpTarget,
  path: string,
  body: string | Uint8Array,
  contentType: string | null = 'application/json',
): Promise<Response> =>
  fetch(target.base + path, {
    method: 'POST',
    headers: { ...keyHeaders(), ...(contentType === null ? {} : { 'content-type': contentType }) },
    body: typeof body === 'string' && contentType === null ? Buffer.from(body) : body,
  });

/** What the tables hold: stored rows, and the total the page counts say (folded and pending). */
export interface Stored {
  readonly rows: number;
  readonly counted: number;
}

export async function stored(db: TestDatabase): Promise<Stored> {
  const [row] = await db.sql<{ rows: number; counted: number }[]>`
    SELECT (SELECT count(*) FROM events)::int4 AS rows,
           (SELECT coalesce(sum(n), 0) FROM event_counts
             WHERE event_type = '' AND granularity = 'h')::int4 +
           (SELECT coalesce(sum(n), 0) FROM event_count_deltas, unnest(counts) AS n)::int4 AS counted`;
  if (row === undefined) throw new Error('no row');
  return row;
}

/**
 * One stored row, shaped as the API's Event by this test code (times read as epoch ms, so
 * postgres.js's own date parsing plays no part).
 */
export async function storedEvent(db: TestDatabase, id: number): Promise<ApiEvent | null> {
  const rows = await db.sql<
    {
      id: string;
      event_type: string;
      ts_ms: number;
      source: string;
      user_id: string | null;
      session_id: string | null;
      severity: ApiEvent['severity'];
      tags: Record<string, string>;
      metadata: Record<string, unknown>;
      received_ms: number;
      processing_latency_ms: number;
    }[]
  >`
    SELECT id, event_type, (extract(epoch FROM ts) * 1000)::float8 AS ts_ms, source, user_id,
           session_id, severity, tags, metadata,
           (extract(epoch FROM received_at) * 1000)::float8 AS received_ms, processing_latency_ms
    FROM events WHERE id = ${id}`;
  const row = rows[0];
  if (row === undefined) return null;
  return {
    id: Number(row.id),
    eventId: `evt_${row.id}`,
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
    error: row.severity === 'ERROR' || row.severity === 'CRITICAL',
  };
}
