/**
 * @module The clock and timers the service's components read, declared once. Each component takes
 * the part it uses, injected, so that a test moves time or fires a timer itself (and checks what
 * was scheduled) instead of waiting it out; production passes nothing and gets REAL_TIMERS.
 */

export interface Timers {
  /** Milliseconds, monotonic. */
  now(): number;
  setTimeout<A>(callback: (arg: A) => void, ms: number, arg: A): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export const REAL_TIMERS: Timers = {
  now: () => performance.now(),
  setTimeout: (callback, ms, arg) => setTimeout(callback, ms, arg),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout | undefined),
  setInterval: (callback, ms) => setInterval(callback, ms),
  clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout | undefined),
};
