/**
 * @module A counter in PostgreSQL that instances poll (front thread, cluster mode): how a change made
 * through one instance reaches the others without NATS (rule changes, metrics resets). The counter
 * is read every POLL_MS, one indexed single-row read; `moved` hears each value that differs from
 * the last one read (and the first read, with `previous` null), and the next read waits for it.
 * A failed read changes nothing: the next one compares with the last value read.
 */
import type { DbFailure, Result } from '../protocol/storage/index.ts';
import type { Logger } from '../log.ts';
import { REAL_TIMERS, type Timers } from '../timers.ts';

export const POLL_MS = 500;

export interface CounterWatch {
  /** Reads the counter now (tests); resolves once the `moved` it called has finished. */
  poll(): Promise<void>;
  stop(): void;
}

export interface WatchedCounter {
  /** What it counts, for the log: `could not read the <name> counter`. */
  readonly name: string;
  readonly read: () => Promise<Result<number, DbFailure>>;
  /** The counter now reads `value`; `previous` is the value read before, null at the first read. */
  readonly moved: (value: number, previous: number | null) => Promise<void> | void;
}

export function watchCounter(
  counter: WatchedCounter,
  log: Logger,
  timers: Pick<Timers, 'setInterval' | 'clearInterval'> = REAL_TIMERS,
): CounterWatch {
  /** The counter as last read; null before the first read. */
  let seen: number | null = null;
  let polling: Promise<void> | null = null;

  const pollOnce = async (): Promise<void> => {
    const result = await counter.read();
    if (!result.ok) {
      log.warn({ reason: result.message }, `could not read the ${counter.name} counter`);
      return;
    }
    const previous = seen;
    seen = result.value;
    if (previous !== result.value) await counter.moved(result.value, previous);
  };
  const poll = (): Promise<void> =>
    (polling ??= pollOnce()
      .catch((error: unknown) => log.error({ err: error }, `${counter.name} poll failed`))
      .finally(() => {
        polling = null;
      }));

  const interval = timers.setInterval(() => void poll(), POLL_MS);
  (interval as { unref?: () => void }).unref?.();
  return { poll, stop: () => timers.clearInterval(interval) };
}
