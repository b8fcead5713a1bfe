/**
 * @module Idempotent ingest (issue 22), the pure part: whose key an event's idempotency key is,
 * what the storage worker hands back for each event of an insert (stored now, a repeat of an
 * earlier one, or a key already used for another body), and when a stored key may be pruned.
 */

/** An idempotency key is 1..128 characters, chosen by the producer (a UUID, a message id, ...). */
export const MAX_IDEMPOTENCY_KEY_CHARACTERS = 128;

/**
 * The producer whose keys a key belongs to: the id of the API key that sent it. The bootstrap key
 * and VIGIL_AUTH=off have no stored id and share this one (the operator). Keys are never compared
 * across producers, so one producer can neither collide with nor probe another's keys.
 */
export const OPERATOR_PRODUCER = 0;

/** An event's claim on a key, as the front thread hands it to the storage worker. */
export interface IdempotencyClaim {
  readonly producer: number;
  readonly key: string;
  /**
   * The request named its timestamp. A repeat's body is compared with the first one's, and a
   * timestamp the server filled in (the time of receipt) differs on every retry: it is left out.
   */
  readonly timestampGiven: boolean;
}

/** A key seen before with the same body: the first event's acknowledgement, nothing stored now. */
export interface RepeatedEvent {
  readonly kind: 'repeat';
  readonly id: number;
  /** The first event's timestamp (epoch ms), which a server-set one makes differ from this one. */
  readonly timestamp: number;
}

/** A key already used with a different body: refused (422), nothing stored. */
export interface ReusedKey {
  readonly kind: 'key-reused';
  /** The event the key was first used for. */
  readonly id: number;
}

/**
 * What became of one event of an insert: a number is the id it was stored under now. Events
 * without a key are always stored: their outcomes are plain ids, as before keys existed.
 */
export type InsertOutcome = number | RepeatedEvent | ReusedKey;

/** Stored keys older than this instant (epoch ms) are past the window at `now` and may go. */
export const pruneBefore = (now: number, windowHours: number): number =>
  now - windowHours * 3_600_000;
