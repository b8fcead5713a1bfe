/**
 * @module CloudEvents 1.0 (issue 32), the mapping to Vigil's event request: one event in its JSON
 * form (structured and batch modes) or as `ce-*` headers and a body (binary mode) becomes the body
 * POST /api/v1/events takes, so checkEventRequest validates it like any other. Errors are keyed by
 * the CloudEvents attribute they concern.
 *
 * type -> eventType, source -> source, time -> timestamp, id -> idempotencyKey (scoped by source),
 * subject, dataschema and extensions -> tags, data -> metadata (an object as it is, any other
 * value as `{ data }`, binary data as `{ data_base64 }`).
 */
import { scopedKey } from './scoped-key.ts';

export const SPECVERSION = '1.0';

/** The modes a Content-Type selects (HTTP binding 3): a prefix, case-insensitive. */
export type CloudEventsMode = 'structured' | 'batch';

export function modeOf(contentType: string): CloudEventsMode | null {
  const type = contentType.trimStart().toLowerCase();
  if (type.startsWith('application/cloudevents-batch')) return 'batch';
  if (type.startsWith('application/cloudevents')) return 'structured';
  return null;
}

/** Binary mode: a request is one when it carries CloudEvents attributes as headers. */
export const isBinaryMode = (contentType: string, header: (name: string) => string): boolean =>
  modeOf(contentType) === null && (header('ce-specversion') !== '' || header('ce-id') !== '');

export type Mapped<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly errors: Record<string, string> };

/** An event request for checkEventRequest, and the CloudEvent's own id (for error messages). */
export interface MappedEvent {
  readonly request: Record<string, unknown>;
  readonly id: string;
  readonly source: string;
}

const NAME = /^[a-z0-9]+$/;
const CONTEXT = new Set(['specversion', 'id', 'source', 'type', 'time', 'datacontenttype']);
const TAGGED = new Set(['subject', 'dataschema']);
const DATA = new Set(['data', 'data_base64']);

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const required = (attributes: Readonly<Record<string, unknown>>, name: string): string | null => {
  const value = attributes[name];
  return typeof value === 'string' && value !== '' ? value : null;
};

/** One structured CloudEvent (a JSON object) as an event request. */
export function eventRequestOf(event: unknown): Mapped<MappedEvent> {
  if (!isObject(event)) {
    return { ok: false, errors: { body: 'a CloudEvent in JSON is an object of attributes' } };
  }
  const errors: Record<string, string> = {};
  if (event.specversion !== SPECVERSION) {
    errors.specversion = `specversion is required and must be '${SPECVERSION}'`;
  }
  for (const name of ['id', 'source', 'type']) {
    if (required(event, name) === null) errors[name] = `${name} is required: a non-empty string`;
  }
  for (const name of ['time', 'subject', 'datacontenttype', 'dataschema']) {
    const value = event[name];
    if (value !== undefined && value !== null && typeof value !== 'string') {
      errors[name] = `${name} must be a string`;
    }
  }
  if (event.data !== undefined && event.data !== null && event.data_base64 !== undefined) {
    errors.data_base64 = 'data and data_base64 must not both be present';
  }
  if (event.data_base64 !== undefined && typeof event.data_base64 !== 'string') {
    errors.data_base64 = 'data_base64 must be a base64 string';
  }
  const tags: Record<string, string> = {};
  for (const [name, value] of Object.entries(event)) {
    if (CONTEXT.has(name) || DATA.has(name) || value === null) continue;
    if (TAGGED.has(name)) {
      if (typeof value === 'string') tags[name] = value;
      continue;
    }
    if (!NAME.test(name)) {
      errors[name] = `extension attribute names are lower-case letters and digits, not '${name}'`;
    } else if (typeof value === 'string' || typeof value === 'boolean') {
      tags[name] = String(value);
    } else if (typeof value === 'number' && Number.isFinite(value)) {
      tags[name] = String(value);
    } else {
      errors[name] = `extension ${name} must be a string, number or boolean`;
    }
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const id = event.id as string;
  const source = event.source as string;
  const request: Record<string, unknown> = {
    eventType: event.type,
    source,
    idempotencyKey: scopedKey('ce', source, id),
    tags,
    metadata: metadataOf(event.data, event.data_base64),
  };
  if (typeof event.time === 'string') request.timestamp = event.time;
  return { ok: true, value: { request, id, source } };
}

function metadataOf(data: unknown, base64: unknown): Record<string, unknown> {
  if (typeof base64 === 'string') return { data_base64: base64 };
  if (isObject(data)) return { ...data };
  return data === undefined || data === null ? {} : { data };
}

/** checkEventRequest's field errors, keyed by the CloudEvents attribute each came from. */
export function attributeErrors(errors: Readonly<Record<string, string>>): Record<string, string> {
  const named: Record<string, string> = {};
  for (const [field, message] of Object.entries(errors)) {
    named[attributeOf(field)] = message;
  }
  return named;
}

const FIELD_ATTRIBUTE: Readonly<Record<string, string>> = {
  eventType: 'type',
  source: 'source',
  timestamp: 'time',
  idempotencyKey: 'id',
  tags: 'extensions',
  metadata: 'data',
};

function attributeOf(field: string): string {
  const dot = field.indexOf('.');
  const head = dot === -1 ? field : field.slice(0, dot);
  if (head === 'tags' && dot !== -1) return field.slice(dot + 1);
  const attribute = FIELD_ATTRIBUTE[head] ?? head;
  return dot === -1 ? attribute : `${attribute}${field.slice(dot)}`;
}
