/**
 * @module The payload of one committed batch as it is kept in ingest_outbox and carried by
 * JetStream: the batch's stored events as the metrics actor needs them (MetricEvent, or
 * DetailedMetricEvent while a PATTERN rule is ACTIVE), column by column, the repeated types and
 * sources written once. Encoded in the storage worker inside the batch's transaction, decoded by
 * the peers' cluster threads. Byte 0 says the format, so a later one can be read beside it.
 *
 * Format 3 (WITH_IDS_FORMAT) wraps a format 1 or 2 payload with the events' stored ids, which a
 * peer's metrics checkpoint marks (issue 33): `[3][u32 BE length][inner payload][int8 BE id]...`.
 * The ids come last because the plain batch's statement draws them: it appends them in SQL
 * (`string_agg(int8send(id), ...)`, events-repository.ts) to the head written before it ran.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import {
  SEVERITIES,
  isDetailed,
  type DetailedMetricEvent,
  type MetricEvent,
  type Severity,
} from '../domain/event.ts';

const JSON_FORMAT = 1;
const DEFLATED_JSON_FORMAT = 2;
const WITH_IDS_FORMAT = 3;
const ID_BYTES = 8;
const HEAD_BYTES = 5;
/**
 * Larger payloads are deflated: NATS refuses a message over its max_payload (1 MiB by default),
 * and a batch of 10,000 events (INGEST_BATCH_MAX at its maximum) with metadata can pass it.
 */
const DEFLATE_FROM_BYTES = 256 * 1024;

/** The columns of a batch; index i of every array is event i. */
interface Columns {
  /** Distinct event types, then sources, each event pointing into them. */
  readonly types: string[];
  readonly sources: string[];
  readonly type: number[];
  readonly source: number[];
  readonly user: (string | null)[];
  /** Index in SEVERITIES. */
  readonly severity: number[];
  /** receivedAt minus the first event's (the first is its own), epoch ms. */
  readonly received: number[];
  readonly latency: number[];
  readonly detail?: {
    readonly id: number[];
    readonly session: (string | null)[];
    readonly tags: Readonly<Record<string, string>>[];
    readonly metadata: Readonly<Record<string, unknown>>[];
  };
}

const SEVERITY_INDEX = new Map<Severity, number>(SEVERITIES.map((s, i) => [s, i]));

/** Index of `key` in `keys`, adding it on first sight. */
const indexIn = (keys: string[], index: Map<string, number>, key: string): number => {
  let at = index.get(key);
  if (at === undefined) {
    at = keys.length;
    keys.push(key);
    index.set(key, at);
  }
  return at;
};

export function encodeBatch(events: readonly MetricEvent[]): Uint8Array {
  const types: string[] = [];
  const sources: string[] = [];
  const typeIndex = new Map<string, number>();
  const sourceIndex = new Map<string, number>();
  const first = events[0]?.receivedAt ?? 0;
  const detailed = events.length > 0 && events.every(isDetailed);
  const columns: Columns = {
    types,
    sources,
    type: events.map((e) => indexIn(types, typeIndex, e.eventType)),
    source: events.map((e) => indexIn(sources, sourceIndex, e.source)),
    user: events.map((e) => e.userId),
    severity: events.map((e) => SEVERITY_INDEX.get(e.severity) ?? 0),
    received: events.map((e, i) => (i === 0 ? first : e.receivedAt - first)),
    latency: events.map((e) => e.latencyMs),
    ...(detailed
      ? {
          detail: {
            id: events.map((e) => e.id),
            session: events.map((e) => e.sessionId),
            tags: events.map((e) => e.tags),
            metadata: events.map((e) => e.metadata),
          },
        }
      : {}),
  };
  const json = Buffer.from(JSON.stringify(columns));
  const small = json.length < DEFLATE_FROM_BYTES;
  const body = small ? json : deflateRawSync(json, { level: 1 });
  // A buffer of its own (not a view into Node's shared pool): it is posted to another thread,
  // and a view would carry the whole pool with it.
  const payload = new Uint8Array(1 + body.length);
  payload[0] = small ? JSON_FORMAT : DEFLATED_JSON_FORMAT;
  payload.set(body, 1);
  return payload;
}

/** The start of a format 3 payload: its ids are appended after it, in the events' order. */
export function idsPayloadHead(inner: Uint8Array): Uint8Array {
  const head = new Uint8Array(HEAD_BYTES + inner.length);
  head[0] = WITH_IDS_FORMAT;
  new DataView(head.buffer).setUint32(1, inner.length);
  head.set(inner, HEAD_BYTES);
  return head;
}

/** `head` (idsPayloadHead) with `ids` appended: what the statement writes, built in JS. */
export function withIds(head: Uint8Array, ids: readonly number[]): Uint8Array {
  const payload = new Uint8Array(head.length + ids.length * ID_BYTES);
  payload.set(head);
  const view = new DataView(payload.buffer);
  // Ids are positive safe integers: two 32-bit halves, no BigInt per event (ingest's hot path).
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const at = head.length + i * ID_BYTES;
    view.setUint32(at, Math.floor(id / 2 ** 32));
    view.setUint32(at + 4, id >>> 0);
  }
  return payload;
}

/** A batch's events, and their stored ids when the payload carries them (format 3). */
export interface DecodedBatch {
  readonly events: MetricEvent[];
  readonly ids: number[] | null;
}

/** Throws on a payload that is not one (the caller logs and skips it). */
export function decodeBatchWithIds(payload: Uint8Array): DecodedBatch {
  if (payload[0] !== WITH_IDS_FORMAT) return { events: decodeBatch(payload), ids: null };
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const innerLength = view.getUint32(1);
  const idsAt = HEAD_BYTES + innerLength;
  const events = decodeBatch(payload.subarray(HEAD_BYTES, idsAt));
  if ((payload.length - idsAt) / ID_BYTES !== events.length)
    throw new Error(`batch payload has ${events.length} events and a different number of ids`);
  const ids = new Array<number>(events.length);
  for (let i = 0; i < ids.length; i++) {
    const at = idsAt + i * ID_BYTES;
    ids[i] = view.getUint32(at) * 2 ** 32 + view.getUint32(at + 4);
  }
  return { events, ids };
}

/** A payload's events; throws on a payload that is not one (the caller logs and skips it). */
export function decodeBatch(payload: Uint8Array): MetricEvent[] {
  if (payload.length === 0) return [];
  if (payload[0] === WITH_IDS_FORMAT) return decodeBatchWithIds(payload).events;
  const body = Buffer.from(payload.buffer, payload.byteOffset + 1, payload.byteLength - 1);
  const format = payload[0];
  let json: Buffer;
  if (format === JSON_FORMAT) json = body;
  else if (format === DEFLATED_JSON_FORMAT) json = inflateRawSync(body);
  else throw new Error(`unknown batch payload format ${format}`);
  const c = JSON.parse(json.toString('utf8')) as Columns;
  const n = c.type.length;
  const first = c.received[0] ?? 0;
  const events = new Array<MetricEvent>(n);
  for (let i = 0; i < n; i++) {
    const eventType = c.types[c.type[i] as number];
    const source = c.sources[c.source[i] as number];
    const severity = SEVERITIES[c.severity[i] as number];
    if (eventType === undefined || source === undefined || severity === undefined)
      throw new Error(`batch payload event ${i} points outside its columns`);
    const metric: MetricEvent = {
      eventType,
      source,
      userId: c.user[i] ?? null,
      severity,
      receivedAt: i === 0 ? first : first + (c.received[i] as number),
      latencyMs: c.latency[i] as number,
    };
    const d = c.detail;
    if (d === undefined) {
      events[i] = metric;
      continue;
    }
    const full: DetailedMetricEvent = {
      ...metric,
      id: d.id[i] as number,
      sessionId: d.session[i] ?? null,
      tags: d.tags[i] ?? {},
      metadata: d.metadata[i] ?? {},
    };
    events[i] = full;
  }
  return events;
}
