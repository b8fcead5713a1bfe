/**
 * @module Building DeliveryResults, and the retry loop every channel shares: up to `attempts`
 * attempts, exponential backoff, an attempt itself says whether its failure is worth retrying.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { DeliveryResult } from '../domain/rules/alerts/alert.ts';
import { INTERNAL_ERROR } from './failure-reasons.ts';
import type { NotifyOptions } from './notify-options.ts';

/** What one attempt came to; `retry` is a failure that another attempt may fix. */
export type AttemptOutcome =
  | { readonly kind: 'ok'; readonly status?: number | undefined }
  | {
      readonly kind: 'retry' | 'fail';
      readonly error: string;
      readonly status?: number | undefined;
    };

const MAX_ERROR_LENGTH = 300;

const result = (
  channel: string,
  ok: boolean,
  attempts: number,
  status: number | undefined,
  error: string | undefined,
): DeliveryResult => ({
  channel,
  ok,
  attempts,
  ...(status === undefined ? {} : { status }),
  ...(error === undefined ? {} : { error }),
  at: new Date().toISOString(),
});

export const deliveryFailure = (
  channel: string,
  attempts: number,
  error: string,
  status?: number,
): DeliveryResult => result(channel, false, attempts, status, clip(error));

/** One line, at most 300 characters: errors end up in logs and stored results. */
export const clip = (text: string): string => {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this removes
  const line = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return line.length > MAX_ERROR_LENGTH ? `${line.slice(0, MAX_ERROR_LENGTH - 1)}…` : line;
};

/**
 * Runs `attempt` until it succeeds, fails for good, or `attempts` are used; waits `backoffMs`,
 * then twice that, and so on, between attempts. A throwing attempt counts as a retryable failure
 * (stored as a fixed text: its message is not ours to show).
 */
export async function withRetries(
  channel: string,
  policy: Pick<NotifyOptions, 'attempts' | 'backoffMs' | 'backoff'>,
  attempt: (n: number) => Promise<AttemptOutcome>,
): Promise<DeliveryResult> {
  const attempts = Math.max(1, Math.floor(policy.attempts));
  for (let n = 1; ; n++) {
    let outcome: AttemptOutcome;
    try {
      outcome = await attempt(n);
    } catch {
      outcome = { kind: 'retry', error: INTERNAL_ERROR };
    }
    if (outcome.kind === 'ok') return result(channel, true, n, outcome.status, undefined);
    if (outcome.kind === 'fail' || n >= attempts) {
      return result(channel, false, n, outcome.status, clip(outcome.error));
    }
    await (policy.backoff ?? sleep)(policy.backoffMs * 2 ** (n - 1));
  }
}
