/**
 * @module Admission to an expensive read (a rule test's replay, an event page, a backtest): at most
 * `perKey` running per API key and `total` in all, of which `reservedForAdmin` only admin keys may
 * take, so that read keys cannot lock an operator out. Past a bound the request is refused at
 * once (no waiting line a client could fill): 429 past the key's, 503 past the total, each with
 * Retry-After and the setting that bounds it (docs/security.md, Limits).
 */
import type { Principal } from '../auth/principal.ts';
import { AppError } from '../errors.ts';

export interface ReadSlotLimits {
  /** What the slots are for, as a client reads it: "rule tests with a replay". */
  readonly what: string;
  readonly total: number;
  readonly perKey: number;
  /** Of `total`, kept for admin keys (a read key may take `total - reservedForAdmin`). */
  readonly reservedForAdmin: number;
  /** The settings that set `perKey` and `total`, named in the refusal. */
  readonly perKeySetting: string;
  readonly totalSetting: string;
  /** Seconds in Retry-After: about how long one such read takes. */
  readonly retryAfterSeconds: number;
}

export interface ReadSlots {
  /** Takes a slot for `principal` or throws the refusal; the answer gives the slot back. */
  take(principal: Principal | null): () => void;
  /** Slots taken now (a scrape, tests). */
  running(): number;
}

/** Whose slots: the stored key, else the principal's label (bootstrap key, authentication off). */
export const ownerOf = (principal: Principal | null): string => {
  if (principal === null) return 'anonymous';
  return principal.keyId === null ? `label:${principal.label}` : `key:${principal.keyId}`;
};

export function createReadSlots(limits: ReadSlotLimits): ReadSlots {
  const byOwner = new Map<string, number>();
  let running = 0;
  const retryAfter = { 'retry-after': String(limits.retryAfterSeconds) };
  const forReadKeys = Math.max(0, limits.total - limits.reservedForAdmin);

  return {
    take(principal) {
      const owner = ownerOf(principal);
      const held = byOwner.get(owner) ?? 0;
      if (held >= limits.perKey) {
        throw new AppError(
          'RATE_LIMITED',
          `This API key already runs ${held} ${limits.what} (${limits.perKeySetting}=` +
            `${limits.perKey}): retry once one has answered`,
          undefined,
          retryAfter,
        );
      }
      const admin = principal?.scope === 'admin';
      const room = admin ? limits.total : forReadKeys;
      if (running >= room) {
        const kept = admin ? '' : `, ${limits.reservedForAdmin} of them kept for admin keys`;
        throw new AppError(
          'OVERLOADED',
          `${running} ${limits.what} are running (${limits.totalSetting}=${limits.total}${kept}): ` +
            'retry later',
          undefined,
          retryAfter,
        );
      }
      byOwner.set(owner, held + 1);
      running++;
      let given = false;
      return () => {
        if (given) return;
        given = true;
        running--;
        const left = (byOwner.get(owner) ?? 1) - 1;
        if (left === 0) byOwner.delete(owner);
        else byOwner.set(owner, left);
      };
    },
    running: () => running,
  };
}

/**
 * Runs `read` in a slot of `slots` for `principal` (refused past a bound). `read` gets the slot's
 * release and calls it when the work has really ended (a read may outlive its answer's deadline);
 * a read that throws gives it back at once.
 */
export async function inSlot<T>(
  slots: ReadSlots,
  principal: Principal | null,
  read: (release: () => void) => Promise<T>,
): Promise<T> {
  const release = slots.take(principal);
  try {
    return await read(release);
  } catch (error) {
    release();
    throw error;
  }
}
