/**
 * @module Silences (issue 18, docs/silences.md): what a client sets, the record every read shows,
 * the limits, and a silence's state at an instant. Pure: the instant is always passed in.
 */
import type { RuleSeverity } from '../severity.ts';

export const SILENCE_STATES = ['pending', 'active', 'expired'] as const;
export type SilenceState = (typeof SILENCE_STATES)[number];

/** Most silences not expired (pending or active) at once: each is checked on every incident. */
export const MAX_OPEN_SILENCES = 1000;
/** Longest silence, from its (clamped) start to its end: a forgotten one ends by itself. */
export const MAX_SILENCE_DAYS = 90;
/** Furthest ahead a silence may start. */
export const MAX_SILENCE_LEAD_DAYS = 365;

/**
 * What a client sets (POST /api/v1/silences), times in epoch ms. A silence with neither `ruleId`
 * nor `severity` silences every rule in its time range (a maintenance window).
 */
export interface SilenceFields {
  /** Only this rule's incidents; null: any rule's. */
  readonly ruleId: number | null;
  /** Only incidents of rules of this severity; null: any severity. */
  readonly severity: RuleSeverity | null;
  readonly startsAt: number;
  readonly endsAt: number;
  readonly comment: string;
  readonly createdBy: string;
}

/** A silence as stored, times as ISO 8601 instants. */
export interface SilenceRecord extends Omit<SilenceFields, 'startsAt' | 'endsAt'> {
  readonly id: number;
  readonly startsAt: string;
  readonly endsAt: string;
  readonly createdAt: string;
}

/** A silence as the API answers it: the record and its state when the request was read. */
export interface SilenceView extends SilenceRecord {
  readonly state: SilenceState;
}

/** The filters of GET /api/v1/silences; null: any. */
export interface SilenceFilter {
  readonly state: SilenceState | null;
  readonly ruleId: number | null;
}

/**
 * What ending a silence did: an active one now ends (`ended`), a pending one, which never
 * silenced anything, is removed (`removed`), an expired one is left as it was (`unchanged`).
 */
export type SilenceEnding = 'ended' | 'removed' | 'unchanged';

/** `pending` before startsAt, `active` from startsAt up to (not including) endsAt, then `expired`. */
export function silenceState(
  silence: Pick<SilenceRecord, 'startsAt' | 'endsAt'>,
  now: number,
): SilenceState {
  if (now < Date.parse(silence.startsAt)) return 'pending';
  return now < Date.parse(silence.endsAt) ? 'active' : 'expired';
}

export const silenceView = (silence: SilenceRecord, now: number): SilenceView => ({
  ...silence,
  state: silenceState(silence, now),
});
