/**
 * @module The bound on outbound notification work (front thread): at most `concurrency`
 * deliveries run at once, at most `queueMax` wait for a slot, and any further one is dropped at
 * once: rules that fire faster than their receivers answer cost a fixed number of sockets and a
 * fixed amount of memory, never a growing pile. Drops are counted and logged, at most once per
 * DROP_WARN_INTERVAL_MS so that a flood does not become a flood of log lines too.
 */
import type { Logger } from '../log.ts';

export interface DeliveryLimits {
  /** Deliveries in flight at most (NOTIFY_CONCURRENCY). */
  readonly concurrency: number;
  /** Deliveries waiting for a slot at most (NOTIFY_QUEUE_MAX); past it they are dropped. */
  readonly queueMax: number;
}

export interface DeliveryLimiterStats {
  readonly inFlight: number;
  readonly queued: number;
  /** Dropped since start. */
  readonly dropped: number;
}

export interface DeliveryLimiter {
  /**
   * Runs `task` once a slot is free, or, when the queue is full, never: the promise then holds
   * `whenDropped()` at once. The promise rejects only if `task` does.
   */
  run<T>(task: () => Promise<T>, whenDropped: () => T): Promise<T>;
  stats(): DeliveryLimiterStats;
}

export const DROP_WARN_INTERVAL_MS = 10_000;

export interface DeliveryLimiterDeps {
  readonly log: Logger;
  /** Clock of the drop warnings' interval; default Date.now. */
  readonly now?: () => number;
}

export function createDeliveryLimiter(
  limits: DeliveryLimits,
  deps: DeliveryLimiterDeps,
): DeliveryLimiter {
  const now = deps.now ?? Date.now;
  const waiting: (() => void)[] = [];
  let inFlight = 0;
  let dropped = 0;
  let droppedAtLastWarn = 0;
  let lastWarnAt = -Infinity;

  // A finished delivery hands its slot straight to the oldest waiting one.
  const release = (): void => {
    const next = waiting.shift();
    if (next === undefined) inFlight--;
    else next();
  };

  // Started from a resolved promise, a task that throws at once still gives its slot back.
  const start = <T>(task: () => Promise<T>): Promise<T> =>
    Promise.resolve().then(task).finally(release);

  const noteDrop = (): void => {
    dropped++;
    const at = now();
    if (at - lastWarnAt < DROP_WARN_INTERVAL_MS) return;
    deps.log.warn(
      {
        droppedTotal: dropped,
        droppedSinceLastWarning: dropped - droppedAtLastWarn,
        concurrency: limits.concurrency,
        queueMax: limits.queueMax,
      },
      'notification queue full: deliveries dropped (NOTIFY_CONCURRENCY, NOTIFY_QUEUE_MAX)',
    );
    lastWarnAt = at;
    droppedAtLastWarn = dropped;
  };

  return {
    run(task, whenDropped) {
      if (inFlight < limits.concurrency) {
        inFlight++;
        return start(task);
      }
      if (waiting.length >= limits.queueMax) {
        noteDrop();
        return Promise.resolve(whenDropped());
      }
      return new Promise<void>((resolve) => waiting.push(resolve)).then(() => start(task));
    },
    stats: () => ({ inFlight, queued: waiting.length, dropped }),
  };
}
