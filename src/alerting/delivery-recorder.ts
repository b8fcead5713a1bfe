/**
 * @module Delivery results written in batches (front thread): the results that finish within
 * `maxWaitMs` of the first one held, or `maxResults` of them, are written together, so a storm of
 * alerts costs a few storage tasks for its deliveries, not one per alert ahead of ingest in the
 * pool's queue. `flush` writes what is held at once (drain, at shutdown): nothing is lost.
 */
import type { AlertDeliveries } from '../domain/rules/alerts/alert.ts';
import type { NotificationCounts } from '../notify/notification-counts.ts';
import { REAL_TIMERS, type Timers } from '../timers.ts';

export interface DeliveryRecorderOptions {
  /** Writes one batch; never rejects (it logs its own failures). */
  readonly write: (results: readonly AlertDeliveries[]) => Promise<void>;
  readonly maxWaitMs: number;
  readonly maxResults: number;
  /** Counts each result by channel and outcome as it arrives (GET /metrics). Absent: none. */
  readonly counts?: NotificationCounts;
  /** Absent: the real timers. Tests pass their own to fire the wait themselves. */
  readonly timers?: Pick<Timers, 'setTimeout' | 'clearTimeout'>;
}

export interface DeliveryRecorder {
  add(results: AlertDeliveries): void;
  /** Writes what is held now; resolves when every write started so far has ended. */
  flush(): Promise<void>;
  /** Results held, not yet handed to `write`. */
  held(): number;
}

export function createDeliveryRecorder(options: DeliveryRecorderOptions): DeliveryRecorder {
  const timers = options.timers ?? REAL_TIMERS;
  let held: AlertDeliveries[] = [];
  let timer: unknown = null;
  const writing = new Set<Promise<void>>();

  const writeHeld = (): void => {
    if (timer !== null) timers.clearTimeout(timer);
    timer = null;
    if (held.length === 0) return;
    const batch = held;
    held = [];
    const written = options.write(batch).finally(() => writing.delete(written));
    writing.add(written);
  };

  return {
    add(results) {
      options.counts?.add(results.deliveries);
      held.push(results);
      if (held.length >= options.maxResults) writeHeld();
      else timer ??= timers.setTimeout(writeHeld, options.maxWaitMs, undefined);
    },
    async flush() {
      writeHeld();
      await Promise.all(writing);
    },
    held: () => held.length,
  };
}
