/**
 * @module A per-key rate limit: GCRA (the generic cell rate algorithm), one number of state per
 * key, no timer and no lock; the front thread alone calls it. A burst of one second's worth is
 * allowed; a charge larger than that (a big batch) passes when the allowance is full and is then
 * paid back before the next.
 */
export interface RateLimiter {
  readonly perSecond: number;
  /** Charges `cost` at `now` (ms): 0 when allowed, else the ms to wait before retrying. */
  take(cost: number, now: number): number;
}

export function createRateLimiter(perSecond: number): RateLimiter {
  const interval = 1000 / perSecond;
  const tolerance = Math.max(1, perSecond) * interval;
  /** Theoretical arrival time: when the allowance would be full again. */
  let tat = 0;
  return {
    perSecond,
    take(cost, now) {
      const start = Math.max(tat, now);
      const wait = start + Math.min(cost * interval, tolerance) - tolerance - now;
      if (wait > 0) return Math.ceil(wait);
      tat = start + cost * interval;
      return 0;
    },
  };
}
