/**
 * Watches the timers one source file of the service sets, with no product hook: the global
 * setTimeout or setInterval is wrapped, and each call made directly by that file (its caller's
 * stack frame, not any frame: a Worker it starts sets timers of its own) is handed to the test,
 * which decides when the callback runs. Tests running the service in their own process use it
 * to check a delay or match each tick to its effect, instead of waiting the time out.
 */

type TimerName = 'setTimeout' | 'setInterval';

/** The real timer, for an interceptor that wants one (a handle to return, or real ticks). */
export type RealTimer = (callback: () => void, ms: number) => NodeJS.Timeout;

/**
 * From now until the returned restore function is called, `take` gets the callback and delay of
 * each `name` call made by `file` (a path ending, such as '/src/service.ts') and returns the
 * handle that file receives. Other calls reach the real timer unchanged.
 */
export function interceptTimer(
  name: TimerName,
  file: string,
  take: (callback: () => void, ms: number, real: RealTimer) => NodeJS.Timeout,
): () => void {
  const real = globalThis[name];
  const realTimer: RealTimer = (callback, ms) => real(callback, ms);
  function watched(
    callback: (...args: unknown[]) => void,
    ms?: number,
    ...args: unknown[]
  ): NodeJS.Timeout {
    const caller = (new Error().stack ?? '').split('\n')[2] ?? '';
    if (!caller.includes(file)) return real(callback, ms, ...args);
    return take(() => callback(...args), ms ?? 0, realTimer);
  }
  globalThis[name] = Object.assign(watched, real) as never;
  return () => {
    globalThis[name] = real as never;
  };
}
