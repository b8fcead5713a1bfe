/**
 * @module Event endpoints (spec 4.1, DESIGN 2-3): single and batch ingest through group commit,
 * paged lists, lookup by eventId.
 */
import { Type } from '@sinclair/typebox';
import type { IngestBatcher } from '../../actors/ingest-batcher.ts';
import type { IngestStamps } from '../../actors/ingest-stages.ts';
import type { StoragePool } from '../../actors/storage-pool.ts';
import { idOfEventId, eventIdOf } from '../../domain/event-id.ts';
import { AppError, notFound, validationError } from '../../errors.ts';
import type { NewEvent } from '../../domain/event.ts';
import { tailRecords, type EventTail } from '../../domain/event-search/tail-records.ts';
import { OPERATOR_PRODUCER, type InsertOutcome, type ReusedKey } from '../../domain/idempotency.ts';
import { checkEventRequest, EventRequestSchema, type EventCheck } from '../../schemas/event.ts';
import type { Principal } from '../../auth/principal.ts';
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
import type { Reply } from '../reply.ts';
import type { Request, Route } from '../route-types.ts';

export interface EventDeps extends EventSearchDeps {
  readonly batcher: IngestBatcher;
  readonly pool: StoragePool;
  readonly batchMaxEvents: number;
  /** How far ahead of the receive time an event's timestamp may be; default 24 h. */
  readonly eventMaxFutureMs?: number;
  /** Where the ingest routes' answers are counted (GET /metrics); absent: not counted. */
  readonly ingestCounts?: IngestCounts;
  /** The live tail (/topic/events): told of each committed event; absent: no tail. */
  readonly tail?: EventTail;
}

const ACCEPTED = 'Event accepted for processing';

/** The single POST's header for the key (IETF draft "The Idempotency-Key HTTP Header Field"). */
const IDEMPOTENCY_HEADER = 'idempotency-key';

/** A stored event's acknowledgement; a repeat of a key gets the first event's, word for word. */
const ack = (event: NewEvent, outcome: Exclude<InsertOutcome, ReusedKey>) => ({
  status: 'accepted' as const,
  eventId: eventIdOf(typeof outcome === 'number' ? outcome : outcome.id),
  eventType: event.eventType,
  timestamp: new Date(
    typeof outcome === 'number' ? event.timestamp : outcome.timestamp,
  ).toISOString(),
  message: ACCEPTED,
});

const reusedMessage = (event: NewEvent, reused: ReusedKey): string =>
  `idempotencyKey '${event.idempotency?.key ?? ''}' was already used for ${eventIdOf(reused.id)} ` +
  'with a different body; a different event needs a key of its own';

/** Whose keys the request's keys are: its API key's, or the operator's (bootstrap key, auth off). */
const producerOf = (principal: Principal | null): number => principal?.keyId ?? OPERATOR_PRODUCER;

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

const failed = (message: string): AppError =>
  new AppError('INTERNAL', `Failed to process event: ${message}`);

async function store(
  deps: EventDeps,
  events: readonly NewEvent[],
  bytes: number,
  stamps?: IngestStamps,
): Promise<readonly InsertOutcome[]> {
  const result = await deps.batcher.submit(events, bytes, stamps);
  if (!result.ok) throw failed(result.message);
  // After COMMIT (the batcher answers once its transaction is committed): a tail never shows an
  // event that a reader could not find.
  if (deps.tail?.tailing() === true) {
    deps.tail.publishEvents(tailRecords(events, result.value, Date.now()));
  }
  return result.value;
}

/** The error of an event whose source the key may not name; null when it may. */
function sourceRefusal(principal: Principal | null, source: string): string | null {
  const allowed = principal?.allowedSources;
  if (allowed === null || allowed === undefined || allowed.has(source)) return null;
  return `source '${source}' is not among this API key's allowedSources`;
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
  const valid: NewEvent[] = [];
  const checks = items.map((item): EventCheck => {
    const checked = checkEventRequest(
      item,
      req.receivedAt,
      unstorable,
      producer,
      deps.eventMaxFutureMs,
    );
    if (!checked.ok) return checked;
    const refused = sourceRefusal(req.principal, checked.event.source);
    if (refused !== null) return { ok: false, errors: { source: refused } };
    valid.push(checked.event);
    return checked;
  });
  const outcomes = valid.length === 0 ? [] : await store(deps, valid, req.rawBody.length);
  let next = 0;
  let reused = 0;
  const results = checks.map((checked, index) => {
    if (!checked.ok) return { status: 'error' as const, index, errors: checked.errors };
    const outcome = outcomes[next++] as InsertOutcome;
    if (typeof outcome === 'number' || outcome.kind === 'repeat')
      return ack(checked.event, outcome);
    reused++;
    const errors = { idempotencyKey: reusedMessage(checked.event, outcome) };
    return { status: 'error' as const, index, errors };
  });
  return {
    status: 202,
    body: {
      status: 'accepted',
      accepted: valid.length - reused,
      rejected: items.length - valid.length + reused,
      results,
    },
  };
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

const errors = { 400: ErrorSchema, 500: ErrorSchema, 503: ErrorSchema };

export const eventRoutes = (deps: EventDeps): Route[] => [
  {
    method: 'POST',
    path: '/api/v1/events',
    scope: 'ingest',
    body: 'json',
    headers: [IDEMPOTENCY_HEADER],
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
    handle: (req) => ingestOne(deps, req),
  },
  {
    method: 'POST',
    path: '/api/v1/events/batch',
    scope: 'ingest',
    body: 'json',
    headers: [IDEMPOTENCY_HEADER],
    answers: deps.ingestCounts?.batch,
    doc: {
      summary: `Ingest up to ${deps.batchMaxEvents} events in one transaction; one result per item`,
      body: Type.Union([
        Type.Array(EventRequestSchema),
        Type.Object({ events: Type.Array(EventRequestSchema) }, { additionalProperties: false }),
      ]),
      responses: { 202: BatchResultSchema, ...errors, 413: ErrorSchema, 415: ErrorSchema },
    },
    handle: (req) => ingestBatch(deps, req),
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
