/**
 * @module OTLP logs (issue 32), the mapping to Vigil's event request: every log record of an
 * ExportLogsServiceRequest (its JSON encoding, or the protobuf one decoded to that shape) becomes
 * the body POST /api/v1/events takes, or the reason it cannot. Pure: no I/O.
 *
 * eventType: the record's eventName, else its `event.name` attribute (deprecated, older senders),
 * else the configured attribute (OTLP_EVENT_TYPE_ATTRIBUTE), else the scope's name. source: the
 * resource's `service.name`. severity: severityNumber's range. tags: the string attributes that
 * fit a tag; metadata: every attribute, the body and the record's context. userId: `enduser.id`;
 * sessionId: `session.id`; idempotencyKey: `log.record.uid`, scoped by service.name.
 */
import type { Severity } from '../../domain/event.ts';
import { MAX_TAGS, MAX_TAG_KEY_CHARACTERS, MAX_TAG_VALUE_CHARACTERS } from '../event.ts';
import { scopedKey } from './scoped-key.ts';

/** One record: its event request, or why it was rejected. */
export type MappedRecord =
  | { readonly ok: true; readonly request: Record<string, unknown> }
  | { readonly ok: false; readonly error: string };

export type MappedLogs =
  | { readonly ok: true; readonly records: readonly MappedRecord[] }
  | { readonly ok: false; readonly error: string };

export interface OtlpMappingOptions {
  /** The attribute naming a record's event type when it has no eventName (null: none). */
  readonly eventTypeAttribute: string | null;
}

type Json = Readonly<Record<string, unknown>>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const listOf = (value: unknown): readonly unknown[] | null =>
  value === undefined || value === null ? [] : Array.isArray(value) ? value : null;

/** An AnyValue as plain JSON: scalars as they are, arrays and key-value lists recursively. */
export function valueOf(any: unknown): unknown {
  if (!isObject(any)) return null;
  if ('stringValue' in any) return any.stringValue;
  if ('boolValue' in any) return any.boolValue;
  if ('intValue' in any) {
    const n = Number(any.intValue);
    return Number.isSafeInteger(n) ? n : String(any.intValue);
  }
  if ('doubleValue' in any) {
    const n = Number(any.doubleValue);
    return Number.isFinite(n) ? n : String(any.doubleValue);
  }
  if ('bytesValue' in any) return any.bytesValue;
  if (isObject(any.arrayValue)) return (listOf(any.arrayValue.values) ?? []).map(valueOf);
  if (isObject(any.kvlistValue)) return attributesOf(any.kvlistValue.values);
  return null;
}

/** KeyValue[] as an object (a repeated key: the last one wins). */
function attributesOf(list: unknown): Record<string, unknown> {
  const attributes = new Map<string, unknown>();
  for (const kv of listOf(list) ?? []) {
    if (isObject(kv) && typeof kv.key === 'string') attributes.set(kv.key, valueOf(kv.value));
  }
  return Object.fromEntries(attributes);
}

/** SeverityNumber ranges (logs.proto): 1-12 TRACE..INFO, 13-16 WARN, 17-20 ERROR, 21-24 FATAL. */
export function severityOf(severityNumber: unknown): Severity {
  const n = Number(severityNumber ?? 0);
  if (n >= 21) return 'CRITICAL';
  if (n >= 17) return 'ERROR';
  if (n >= 13) return 'WARNING';
  return 'INFO';
}

const NANOS_PER_MS = 1_000_000n;

/** A fixed64 nanosecond instant as ISO 8601; undefined for 0 (unknown) or none. */
function instantOf(nanos: unknown): string | undefined {
  const text = typeof nanos === 'number' ? String(Math.trunc(nanos)) : nanos;
  if (typeof text !== 'string' || !/^\d{1,20}$/.test(text) || /^0+$/.test(text)) return undefined;
  const ms = Number(BigInt(text) / NANOS_PER_MS);
  return ms <= 8.64e15 ? new Date(ms).toISOString() : undefined;
}

const text = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;

/** The string attributes that fit a tag, at most MAX_TAGS of them. */
function tagsOf(attributes: Json): Record<string, string> {
  const tags: Record<string, string> = {};
  let count = 0;
  for (const [key, value] of Object.entries(attributes)) {
    if (count === MAX_TAGS) break;
    if (typeof value !== 'string' || key.length > MAX_TAG_KEY_CHARACTERS) continue;
    if (value.length > MAX_TAG_VALUE_CHARACTERS) continue;
    tags[key] = value;
    count++;
  }
  return tags;
}

interface Context {
  readonly source: string | null;
  readonly resource: Json;
  readonly scope: Json;
}

function recordRequest(
  record: unknown,
  context: Context,
  options: OtlpMappingOptions,
): MappedRecord {
  if (!isObject(record)) return { ok: false, error: 'a log record must be an object' };
  const attributes = attributesOf(record.attributes);
  const configured = options.eventTypeAttribute;
  const eventType =
    text(record.eventName) ??
    text(attributes['event.name']) ??
    (configured === null ? null : text(attributes[configured])) ??
    text(context.scope.name);
  if (eventType === null) {
    return { ok: false, error: 'a log record needs an eventName (or its scope a name)' };
  }
  if (context.source === null) {
    return { ok: false, error: "the resource has no 'service.name' attribute" };
  }
  const metadata: Record<string, unknown> = { attributes };
  if (record.body !== undefined) metadata.body = valueOf(record.body);
  for (const field of ['severityText', 'traceId', 'spanId']) {
    const value = text(record[field]);
    if (value !== null) metadata[field] = value;
  }
  metadata.scope = { name: context.scope.name ?? '', version: context.scope.version ?? '' };
  metadata.resource = context.resource;
  const request: Record<string, unknown> = {
    eventType,
    source: context.source,
    severity: severityOf(record.severityNumber),
    tags: tagsOf(attributes),
    metadata,
  };
  const timestamp = instantOf(record.timeUnixNano) ?? instantOf(record.observedTimeUnixNano);
  if (timestamp !== undefined) request.timestamp = timestamp;
  const userId = text(attributes['enduser.id']);
  if (userId !== null) request.userId = userId;
  const sessionId = text(attributes['session.id']);
  if (sessionId !== null) request.sessionId = sessionId;
  const uid = text(attributes['log.record.uid']);
  if (uid !== null) request.idempotencyKey = scopedKey('otlp', context.source, uid);
  return { ok: true, request };
}

/** Every log record of the request, in order; a request of the wrong shape fails as a whole. */
export function mapLogsRequest(body: unknown, options: OtlpMappingOptions): MappedLogs {
  if (!isObject(body))
    return { ok: false, error: 'the request must be an ExportLogsServiceRequest' };
  const resourceLogs = listOf(body.resourceLogs);
  if (resourceLogs === null) return { ok: false, error: 'resourceLogs must be an array' };
  const records: MappedRecord[] = [];
  for (const rl of resourceLogs) {
    if (!isObject(rl)) return { ok: false, error: 'each resourceLogs must be an object' };
    const resource = attributesOf(isObject(rl.resource) ? rl.resource.attributes : undefined);
    const source = text(resource['service.name']);
    const scopeLogs = listOf(rl.scopeLogs);
    if (scopeLogs === null) return { ok: false, error: 'scopeLogs must be an array' };
    for (const sl of scopeLogs) {
      if (!isObject(sl)) return { ok: false, error: 'each scopeLogs must be an object' };
      const logRecords = listOf(sl.logRecords);
      if (logRecords === null) return { ok: false, error: 'logRecords must be an array' };
      const scope = isObject(sl.scope) ? sl.scope : {};
      for (const record of logRecords) {
        records.push(recordRequest(record, { source, resource, scope }, options));
      }
    }
  }
  return { ok: true, records };
}
