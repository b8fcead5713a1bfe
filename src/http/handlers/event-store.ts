/**
 * @module Storing validated events for every ingest format (JSON, CloudEvents, OTLP): one submit
 * to group commit, the live tail told after COMMIT, and the acknowledgement of each event.
 */
import type { IngestStamps } from '../../actors/ingest-stages.ts';
import { eventIdOf } from '../../domain/event-id.ts';
import type { NewEvent } from '../../domain/event.ts';
import { tailRecords } from '../../domain/event-search/tail-records.ts';
import { OPERATOR_PRODUCER, type InsertOutcome, type ReusedKey } from '../../domain/idempotency.ts';
import { AppError } from '../../errors.ts';
import type { EventCheck } from '../../schemas/event.ts';
import type { AckSchema, BatchResultSchema } from '../../schemas/event-responses.ts';
import type { Static } from '@sinclair/typebox';

type Ack = Static<typeof AckSchema>;
type BatchResult = Static<typeof BatchResultSchema>;
import type { Principal } from '../../auth/principal.ts';
import type { IngestBatcher } from '../../actors/ingest-batcher.ts';
import type { EventTail } from '../../domain/event-search/tail-records.ts';

/** What storing needs: group commit, and the live tail to tell. */
export interface StoreDeps {
  readonly batcher: IngestBatcher;
  /** The live tail (/topic/events): told of each committed event; absent: no tail. */
  readonly tail?: EventTail;
}

export const ACCEPTED = 'Event accepted for processing';

/** A stored event's acknowledgement; a repeat of a key gets the first event's, word for word. */
export const ack = (event: NewEvent, outcome: Exclude<InsertOutcome, ReusedKey>): Ack => ({
  status: 'accepted' as const,
  eventId: eventIdOf(typeof outcome === 'number' ? outcome : outcome.id),
  eventType: event.eventType,
  timestamp: new Date(
    typeof outcome === 'number' ? event.timestamp : outcome.timestamp,
  ).toISOString(),
  message: ACCEPTED,
});

export const reusedMessage = (event: NewEvent, reused: ReusedKey): string =>
  `idempotencyKey '${event.idempotency?.key ?? ''}' was already used for ${eventIdOf(reused.id)} ` +
  'with a different body; a different event needs a key of its own';

/** Whose keys the request's keys are: its API key's, or the operator's (bootstrap key, auth off). */
export const producerOf = (principal: Principal | null): number =>
  principal?.keyId ?? OPERATOR_PRODUCER;

export const failed = (message: string): AppError =>
  new AppError('INTERNAL', `Failed to process event: ${message}`);

export async function store(
  deps: StoreDeps,
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
export function sourceRefusal(principal: Principal | null, source: string): string | null {
  const allowed = principal?.allowedSources;
  if (allowed === null || allowed === undefined || allowed.has(source)) return null;
  return `source '${source}' is not among this API key's allowedSources`;
}

/** What became of one item of a request carrying several events. */
export type ItemOutcome =
  | { readonly kind: 'stored'; readonly event: NewEvent; readonly outcome: StoredOutcome }
  | { readonly kind: 'refused'; readonly errors: Readonly<Record<string, string>> }
  | { readonly kind: 'key-reused'; readonly event: NewEvent; readonly outcome: ReusedKey };

type StoredOutcome = Exclude<InsertOutcome, ReusedKey>;

/**
 * Stores the valid events of `checks` in one submit (none: nothing submitted), those whose source
 * the key may not name refused; one outcome per check, in order. `bytes`: the request's size.
 */
export async function storeChecked(
  deps: StoreDeps,
  principal: Principal | null,
  checks: readonly EventCheck[],
  bytes: number,
): Promise<ItemOutcome[]> {
  const valid: NewEvent[] = [];
  const allowed = checks.map((checked): EventCheck => {
    if (!checked.ok) return checked;
    const refused = sourceRefusal(principal, checked.event.source);
    if (refused !== null) return { ok: false, errors: { source: refused } };
    valid.push(checked.event);
    return checked;
  });
  const outcomes = valid.length === 0 ? [] : await store(deps, valid, bytes);
  let next = 0;
  return allowed.map((checked): ItemOutcome => {
    if (!checked.ok) return { kind: 'refused', errors: checked.errors };
    const outcome = outcomes[next++] as InsertOutcome;
    if (typeof outcome === 'number' || outcome.kind === 'repeat')
      return { kind: 'stored', event: checked.event, outcome };
    return { kind: 'key-reused', event: checked.event, outcome };
  });
}

type KeyReused = Extract<ItemOutcome, { kind: 'key-reused' }>;

const reusedField = (item: KeyReused, _index: number) => ({
  idempotencyKey: reusedMessage(item.event, item.outcome),
});

/**
 * A batch's 202 body: one result per item. `reused` names the error of a key used before for
 * another body (by default the field `idempotencyKey`; CloudEvents name their `id`).
 */
export function batchAnswer(
  items: readonly ItemOutcome[],
  reused: (item: KeyReused, index: number) => Record<string, string> = reusedField,
): BatchResult {
  let accepted = 0;
  const results = items.map((item, index) => {
    if (item.kind === 'stored') {
      accepted++;
      return ack(item.event, item.outcome);
    }
    const errors = item.kind === 'refused' ? item.errors : reused(item, index);
    return { status: 'error' as const, index, errors };
  });
  return { status: 'accepted' as const, accepted, rejected: items.length - accepted, results };
}
