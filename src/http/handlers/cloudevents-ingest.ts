/**
 * @module CloudEvents 1.0 on the event endpoints (issue 32): structured, binary and batch modes,
 * mapped to event requests (src/schemas/ingest-formats/cloudevents.ts) and then checked, stored
 * and acknowledged exactly as the JSON ones: 202 after COMMIT, the same bounds, keys and sources.
 * A CloudEvent's `id`, scoped by its `source`, is its idempotency key. Errors name the attribute.
 */
import { eventIdOf } from '../../domain/event-id.ts';
import { AppError, validationError } from '../../errors.ts';
import { checkEventRequest, type EventCheck } from '../../schemas/event.ts';
import {
  attributeErrors,
  eventRequestOf,
  modeOf,
  type MappedEvent,
} from '../../schemas/ingest-formats/cloudevents.ts';
import { binaryEvent } from '../../schemas/ingest-formats/cloudevents-binary.ts';
import { charge } from '../authorize.ts';
import type { Reply } from '../reply.ts';
import type { Request } from '../route-types.ts';
import { ack, batchAnswer, producerOf, storeChecked, type StoreDeps } from './event-store.ts';

export interface CloudEventsDeps extends StoreDeps {
  readonly batchMaxEvents: number;
  readonly eventMaxFutureMs?: number;
}

/** The request is a CloudEvent: binary mode (its body read as bytes) or a CloudEvents type. */
export const isCloudEvents = (req: Request): boolean =>
  req.bytes !== undefined || modeOf(req.headers['content-type'] ?? '') !== null;

/** The request's events in their JSON form, and whether it came as a batch. */
function eventsOf(req: Request, max: number): { events: readonly unknown[]; batch: boolean } {
  const contentType = req.headers['content-type'] ?? '';
  if (req.bytes !== undefined) {
    const binary = binaryEvent(req.headers, contentType, req.bytes);
    if (!binary.ok) throw validationError(binary.errors);
    return { events: [binary.value], batch: false };
  }
  if (modeOf(contentType) === 'structured') return { events: [req.body], batch: false };
  const events = req.body;
  if (!Array.isArray(events)) {
    throw validationError({ body: 'a CloudEvents batch is a JSON array of events' });
  }
  if (events.length === 0)
    throw validationError({ body: 'the batch must hold at least one event' });
  if (events.length > max)
    throw validationError({ body: `the batch must hold at most ${max} events` });
  return { events, batch: true };
}

const reusedMessage = (mapped: MappedEvent | null, eventId: string): string =>
  `id '${mapped?.id ?? ''}' of source '${mapped?.source ?? ''}' was already used for ${eventId} ` +
  'with a different body; a different event needs an id of its own';

/**
 * Ingests the request's CloudEvents. `answer`: 'single' (POST /api/v1/events) acknowledges one
 * event as a JSON event is; a batch, or any request to the batch route, gets one result per event.
 */
export async function ingestCloudEvents(
  deps: CloudEventsDeps,
  req: Request,
  answer: 'single' | 'batch',
): Promise<Reply> {
  const { events, batch } = eventsOf(req, deps.batchMaxEvents);
  charge(req.principal, events.length, req.receivedAt, 'events');
  const producer = producerOf(req.principal);
  const mapped: (MappedEvent | null)[] = [];
  const checks = events.map((event): EventCheck => {
    const request = eventRequestOf(event);
    mapped.push(request.ok ? request.value : null);
    if (!request.ok) return request;
    const checked = checkEventRequest(
      request.value.request,
      req.receivedAt,
      true,
      producer,
      deps.eventMaxFutureMs,
    );
    return checked.ok ? checked : { ok: false, errors: attributeErrors(checked.errors) };
  });
  if (batch || answer === 'batch') {
    const items = await storeChecked(
      deps,
      req.principal,
      checks,
      req.bytes?.length ?? req.rawBody.length,
    );
    const body = batchAnswer(items, (item, index) => ({
      id: reusedMessage(mapped[index] ?? null, eventIdOf(item.outcome.id)),
    }));
    return { status: 202, body };
  }
  const [checked] = checks as [EventCheck];
  if (!checked.ok) throw validationError(checked.errors);
  const [item] = await storeChecked(
    deps,
    req.principal,
    checks,
    req.bytes?.length ?? req.rawBody.length,
  );
  if (item?.kind === 'refused') {
    const message = item.errors.source ?? 'refused';
    throw new AppError('SOURCE_NOT_ALLOWED', message, { source: message });
  }
  if (item?.kind === 'key-reused') {
    const message = reusedMessage(mapped[0] ?? null, eventIdOf(item.outcome.id));
    throw new AppError('IDEMPOTENCY_KEY_REUSED', message, { id: message });
  }
  if (item === undefined) throw new AppError('INTERNAL', 'Failed to process event: no outcome');
  return { status: 202, body: ack(item.event, item.outcome) };
}
