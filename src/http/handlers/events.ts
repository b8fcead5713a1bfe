/**
 * @module Event endpoints (spec 4.1, DESIGN 2-3): single and batch ingest through group commit,
 * paged lists, lookup by eventId.
 */
import { Type } from '@sinclair/typebox';
import type { StoragePool } from '../../actors/storage-pool.ts';
import { idOfEventId } from '../../domain/event-id.ts';
import { AppError, notFound, validationError } from '../../errors.ts';
import type { InsertOutcome } from '../../domain/idempotency.ts';
import { checkEventRequest, EventRequestSchema } from '../../schemas/event.ts';
import { charge } from '../authorize.ts';
import {
  AckSchema,
  BatchResultSchema,
  ErrorSchema,
  EventPageSchema,
  EventSchema,
} from '../../schemas/event-responses.ts';
import { mayHoldUnstorable } from '../../schemas/json-guards.ts';
import { isPaging, PagingQuerySchema, parsePaging, toPage } from '../../schemas/paging.ts';
import type { IngestCounts } from '../ingest-answers.ts';
import { inSlot } from '../read-slots.ts';
import { eventSearchRoutes, type EventSearchDeps } from './event-search.ts';
import {
  ack,
  batchAnswer,
  failed,
  producerOf,
  reusedMessage,
  sourceRefusal,
  store,
  storeChecked,
  type StoreDeps,
} from './event-store.ts';
import type { Reply } from '../reply.ts';
import type { BytesBody, Request, Route } from '../route-types.ts';
import { isBinaryMode } from '../../schemas/ingest-formats/cloudevents.ts';
import { ingestCloudEvents, isCloudEvents } from './cloudevents-ingest.ts';

export interface EventDeps extends EventSearchDeps, StoreDeps {
  readonly pool: StoragePool;
  readonly batchMaxEvents: number;
  /** How far ahead of the receive time an event's timestamp may be; default 24 h. */
  readonly eventMaxFutureMs?: number;
  /** Where the ingest routes' answers are counted (GET /metrics); absent: not counted. */
  readonly ingestCounts?: IngestCounts;
}

/** The single POST's header for the key (IETF draft "The Idempotency-Key HTTP Header Field"). */
const IDEMPOTENCY_HEADER = 'idempotency-key';

/** The body with the Idempotency-Key header's key as its idempotencyKey (400 if both differ). */
function withHeaderKey(body: unknown, header: string): unknown {
  if (header === '' || body === null || typeof body !== 'object' || Array.isArray(body)) {
    return body;
  }
  const given = (body as { idempotencyKey?: unknown }).idempotencyKey;
  if (given === undefined) return { ...body, idempotencyKey: header };
  if (given === header) return body;
  throw validationError({
    idempotencyKey: 'the Idempotency-Key header and the idempotencyKey field differ',
  });
}

async function ingestOne(deps: EventDeps, req: Request): Promise<Reply> {
  charge(req.principal, 1, req.receivedAt, 'events');
  const checked = checkEventRequest(
    withHeaderKey(req.body, req.headers[IDEMPOTENCY_HEADER] ?? ''),
    req.receivedAt,
    mayHoldUnstorable(req.rawBody),
    producerOf(req.principal),
    deps.eventMaxFutureMs,
  );
  if (!checked.ok) throw validationError(checked.errors);
  const refused = sourceRefusal(req.principal, checked.event.source);
  if (refused !== null) throw new AppError('SOURCE_NOT_ALLOWED', refused, { source: refused });
  const [outcome] = (await store(deps, [checked.event], req.rawBody.length, req.stamps)) as [
    InsertOutcome,
  ];
  if (typeof outcome === 'object' && outcome.kind === 'key-reused') {
    const message = reusedMessage(checked.event, outcome);
    throw new AppError('IDEMPOTENCY_KEY_REUSED', message, { idempotencyKey: message });
  }
  return { status: 202, body: ack(checked.event, outcome) };
}

function batchItems(body: unknown, max: number): readonly unknown[] {
  const items = Array.isArray(body) ? body : (body as { events?: unknown }).events;
  const extra = Array.isArray(body)
    ? []
    : Object.keys(body as object).filter((k) => k !== 'events');
  if (extra.length > 0)
    throw validationError(Object.fromEntries(extra.map((k) => [k, `${k} is not a known field`])));
  if (!Array.isArray(items)) throw validationError({ events: 'events must be an array of events' });
  if (items.length === 0) throw validationError({ events: 'events must hold at least one event' });
  if (items.length > max)
    throw validationError({ events: `events must hold at most ${max} events` });
  return items;
}

async function ingestBatch(deps: EventDeps, req: Request): Promise<Reply> {
  // One key cannot stand for many events: refused rather than ignored, so that a producer does
  // not believe a batch protected that is not.
  if ((req.headers[IDEMPOTENCY_HEADER] ?? '') !== '') {
    throw validationError({
      idempotencyKey:
        'the Idempotency-Key header is for a single event; give each batch item its idempotencyKey',
    });
  }
  const items = batchItems(req.body, deps.batchMaxEvents);
  charge(req.principal, items.length, req.receivedAt, 'events');
  const unstorable = mayHoldUnstorable(req.rawBody);
  const producer = producerOf(req.principal);
  const checks = items.map((item) =>
    checkEventRequest(item, req.receivedAt, unstorable, producer, deps.eventMaxFutureMs),
  );
  const stored = await storeChecked(deps, req.principal, checks, req.rawBody.length);
  return { status: 202, body: batchAnswer(stored) };
}

async function list(deps: EventDeps, req: Request, eventType: string): Promise<Reply> {
  const paging = parsePaging(req.query);
  if (!isPaging(paging)) throw validationError(paging);
  const result = await inSlot(deps.pageSlots, req.principal, (release) =>
    deps.pages.run('listEvents', { eventType, ...paging }, release),
  );
  if (!result.ok) throw failed(result.message);
  return { status: 200, body: toPage(result.value.rows, result.value.total, paging) };
}

async function getOne(deps: EventDeps, req: Request): Promise<Reply> {
  const eventId = req.params.eventId ?? '';
  const id = idOfEventId(eventId);
  if (id === null) throw notFound(`Event ${eventId} not found`);
  const result = await deps.pool.run('getEvent', { id });
  if (result.ok) return { status: 200, body: result.value };
  if (result.code === 'NOT_FOUND') throw notFound(`Event ${eventId} not found`);
  throw failed(result.message);
}

/** The ingest routes read the key header, and the media type that tells CloudEvents apart. */
const INGEST_HEADERS = [IDEMPOTENCY_HEADER, 'content-type'];

/** CloudEvents binary mode: the attributes in `ce-*` headers, the body the data, of any type. */
const CLOUDEVENTS_BINARY: BytesBody = { when: isBinaryMode, headerPrefix: 'ce-' };

const errors = { 400: ErrorSchema, 500: ErrorSchema, 503: ErrorSchema };

export const eventRoutes = (deps: EventDeps): Route[] => [
  {
    method: 'POST',
    path: '/api/v1/events',
    scope: 'ingest',
    body: 'json',
    bytesBody: CLOUDEVENTS_BINARY,
    headers: INGEST_HEADERS,
    answers: deps.ingestCounts?.single,
    stamped: true,
    doc: {
      summary:
        'Ingest one event; 202 once it is stored (group commit). A repeated idempotency key ' +
        '(field or Idempotency-Key header) answers the first acknowledgement; 422 if its body differs',
      body: EventRequestSchema,
      responses: {
        202: AckSchema,
        ...errors,
        413: ErrorSchema,
        415: ErrorSchema,
        422: ErrorSchema,
      },
    },
    handle: (req) =>
      isCloudEvents(req) ? ingestCloudEvents(deps, req, 'single') : ingestOne(deps, req),
  },
  {
    method: 'POST',
    path: '/api/v1/events/batch',
    scope: 'ingest',
    body: 'json',
    bytesBody: CLOUDEVENTS_BINARY,
    headers: INGEST_HEADERS,
    answers: deps.ingestCounts?.batch,
    doc: {
      summary: `Ingest up to ${deps.batchMaxEvents} events in one transaction; one result per item`,
      body: Type.Union([
        Type.Array(EventRequestSchema),
        Type.Object({ events: Type.Array(EventRequestSchema) }, { additionalProperties: false }),
      ]),
      responses: { 202: BatchResultSchema, ...errors, 413: ErrorSchema, 415: ErrorSchema },
    },
    handle: (req) =>
      isCloudEvents(req) ? ingestCloudEvents(deps, req, 'batch') : ingestBatch(deps, req),
  },
  ...eventSearchRoutes(deps),
  {
    method: 'GET',
    path: '/api/v1/events/type/:eventType',
    scope: 'read',
    body: 'none',
    doc: {
      summary: 'Events of one type, newest first',
      query: PagingQuerySchema,
      responses: { 200: EventPageSchema, ...errors, 429: ErrorSchema },
    },
    handle: (req) => list(deps, req, req.params.eventType ?? ''),
  },
  {
    method: 'GET',
    path: '/api/v1/events/:eventId',
    scope: 'read',
    body: 'none',
    doc: {
      summary: 'One event by eventId (evt_<id>)',
      responses: { 200: EventSchema, 404: ErrorSchema, 500: ErrorSchema },
    },
    handle: (req) => getOne(deps, req),
  },
];
