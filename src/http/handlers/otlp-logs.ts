/**
 * @module OTLP/HTTP logs ingest (issue 32): POST /v1/logs in the JSON and protobuf encodings,
 * gzip or not. Each log record becomes an event (src/schemas/ingest-formats/otlp-logs.ts), checked
 * and stored as POST /api/v1/events/batch stores its items: one group commit, answered after
 * COMMIT, the same bounds, keys and sources. Answers follow OTLP: 200 with an empty response,
 * or its partialSuccess naming the records rejected; 400 with a google.rpc.Status when nothing can
 * be taken, in the request's own encoding.
 */
import { gunzipSync } from 'node:zlib';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../errors.ts';
import { checkEventRequest, type EventCheck } from '../../schemas/event.ts';
import { ErrorSchema } from '../../schemas/event-responses.ts';
import { mapLogsRequest } from '../../schemas/ingest-formats/otlp-logs.ts';
import {
  decodeLogsRequest,
  encodeLogsResponse,
  encodeStatus,
} from '../../schemas/ingest-formats/otlp-protobuf.ts';
import { charge } from '../authorize.ts';
import { parseJson } from '../json-body.ts';
import { tooLarge } from '../read-body.ts';
import type { Reply } from '../reply.ts';
import type { Request, Route } from '../route-types.ts';
import { producerOf, storeChecked, type ItemOutcome, type StoreDeps } from './event-store.ts';

export interface OtlpDeps extends StoreDeps {
  readonly batchMaxEvents: number;
  readonly eventMaxFutureMs?: number;
  /** MAX_BODY_BYTES: also the bound of a gzip body once inflated. */
  readonly maxBodyBytes: number;
  /** OTLP_EVENT_TYPE_ATTRIBUTE: names a record's event type when it has no eventName. */
  readonly otlpEventTypeAttribute?: string;
}

const JSON_MEDIA = /^application\/json\s*(?:;|$)/i;
const PROTOBUF_MEDIA = /^application\/x-protobuf\s*(?:;|$)/i;
/** google.rpc.Code INVALID_ARGUMENT: what OTLP receivers answer for data they cannot take. */
const INVALID_ARGUMENT = 3;
/** How many rejected records a partial success names (the count covers them all). */
const NAMED_REJECTIONS = 5;

type Encoding = 'json' | 'protobuf';

const answer = (encoding: Encoding, status: number, json: unknown, bytes: Uint8Array): Reply =>
  encoding === 'json'
    ? { status, body: json }
    : { status, text: { contentType: 'application/x-protobuf', body: bytes } };

/** A failed export: 400 and a google.rpc.Status, never retried by the exporter. */
const failure = (encoding: Encoding, message: string): Reply =>
  answer(
    encoding,
    400,
    { code: INVALID_ARGUMENT, message },
    encodeStatus(INVALID_ARGUMENT, message),
  );

function inflated(req: Request, maxBytes: number): Buffer {
  const bytes = req.bytes ?? Buffer.alloc(0);
  const encoding = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return bytes;
  if (encoding !== 'gzip') {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Content-Encoding must be gzip, got '${encoding}'`,
    );
  }
  try {
    return gunzipSync(bytes, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(maxBytes);
    throw new AppError('VALIDATION_FAILED', 'The gzip body does not inflate', {
      body: 'Content-Encoding says gzip, but the body is not gzip data',
    });
  }
}

/** The request's body as the JSON encoding's shape, or the failure to answer. */
function decoded(req: Request, encoding: Encoding, maxBytes: number): unknown {
  if (req.bytes === undefined) return req.body;
  const bytes = inflated(req, maxBytes);
  if (encoding === 'json') {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
    let json: string;
    try {
      json = text.decode(bytes);
    } catch {
      throw new AppError('MALFORMED_JSON', 'Request body is not valid UTF-8');
    }
    return parseJson(json);
  }
  return decodeLogsRequest(bytes);
}

function encodingOf(contentType: string): Encoding {
  if (JSON_MEDIA.test(contentType)) return 'json';
  if (PROTOBUF_MEDIA.test(contentType)) return 'protobuf';
  throw new AppError(
    'UNSUPPORTED_MEDIA_TYPE',
    `Content-Type must be application/json or application/x-protobuf, got '${contentType}'`,
  );
}

const rejectionOf = (item: ItemOutcome): string | null => {
  if (item.kind === 'stored') return null;
  if (item.kind === 'key-reused') return "its 'log.record.uid' was already used for another body";
  return Object.entries(item.errors)
    .map(([field, message]) => `${field}: ${message}`)
    .join(', ');
};

async function ingestLogs(deps: OtlpDeps, req: Request): Promise<Reply> {
  const encoding = encodingOf(req.headers['content-type'] ?? '');
  let body: unknown;
  try {
    body = decoded(req, encoding, deps.maxBodyBytes);
  } catch (error) {
    if (error instanceof AppError && error.status !== 400) throw error;
    const reason = error instanceof AppError ? error.message : (error as Error).message;
    return failure(encoding, `The body is not an ExportLogsServiceRequest (${reason})`);
  }
  const mapped = mapLogsRequest(body, {
    eventTypeAttribute: deps.otlpEventTypeAttribute || null,
  });
  if (!mapped.ok) return failure(encoding, mapped.error);
  const records = mapped.records;
  if (records.length === 0) return answer(encoding, 200, {}, encodeLogsResponse(0, ''));
  if (records.length > deps.batchMaxEvents) {
    const message = `at most ${deps.batchMaxEvents} log records per request, not ${records.length}`;
    return failure(encoding, message);
  }
  charge(req.principal, records.length, req.receivedAt, 'events');
  const producer = producerOf(req.principal);
  const checks = records.map((record): EventCheck =>
    record.ok
      ? checkEventRequest(record.request, req.receivedAt, true, producer, deps.eventMaxFutureMs)
      : { ok: false, errors: { logRecord: record.error } },
  );
  const size = req.bytes?.length ?? req.rawBody.length;
  const items = await storeChecked(deps, req.principal, checks, size);
  const rejections = items.flatMap((item, index) => {
    const why = rejectionOf(item);
    return why === null ? [] : [`log record ${index}: ${why}`];
  });
  if (rejections.length === items.length) {
    return failure(
      encoding,
      `No log record was taken; ${rejections.slice(0, NAMED_REJECTIONS).join('; ')}`,
    );
  }
  if (rejections.length === 0) return answer(encoding, 200, {}, encodeLogsResponse(0, ''));
  const more = rejections.length > NAMED_REJECTIONS ? '; ...' : '';
  const errorMessage = `${rejections.slice(0, NAMED_REJECTIONS).join('; ')}${more}`;
  return answer(
    encoding,
    200,
    { partialSuccess: { rejectedLogRecords: String(rejections.length), errorMessage } },
    encodeLogsResponse(rejections.length, errorMessage),
  );
}

const StatusSchema = Type.Object(
  { code: Type.Integer(), message: Type.String() },
  { description: 'google.rpc.Status (JSON encoding; protobuf for a protobuf request)' },
);

const LogsResponseSchema = Type.Object(
  {
    partialSuccess: Type.Optional(
      Type.Object({
        rejectedLogRecords: Type.String({ description: 'int64, as OTLP JSON writes it' }),
        errorMessage: Type.String(),
      }),
    ),
  },
  { description: 'ExportLogsServiceResponse (JSON encoding; protobuf for a protobuf request)' },
);

export const otlpRoutes = (deps: OtlpDeps): Route[] => [
  {
    method: 'POST',
    path: '/v1/logs',
    scope: 'ingest',
    body: 'json',
    // Protobuf, and any gzip body, are read as bytes; the handler checks the media type.
    bytesBody: {
      when: (contentType, header) =>
        !JSON_MEDIA.test(contentType) || header('content-encoding') !== '',
    },
    headers: ['content-type', 'content-encoding'],
    doc: {
      summary:
        'OTLP/HTTP logs (JSON or protobuf, gzip allowed): each log record becomes an event; ' +
        '200 once stored, with partialSuccess naming rejected records',
      mediaType: ['application/json', 'application/x-protobuf'],
      bodyMediaType: ['application/json', 'application/x-protobuf'],
      body: Type.Object(
        { resourceLogs: Type.Array(Type.Object({}, { additionalProperties: true })) },
        { description: 'ExportLogsServiceRequest (OTLP JSON encoding, or application/x-protobuf)' },
      ),
      responses: {
        200: LogsResponseSchema,
        400: StatusSchema,
        401: ErrorSchema,
        413: ErrorSchema,
        415: ErrorSchema,
        429: ErrorSchema,
        503: ErrorSchema,
      },
    },
    handle: (req) => ingestLogs(deps, req),
  },
];
