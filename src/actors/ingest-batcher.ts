/**
 * @module Group commit (front thread): events from many requests are gathered into one batch per
 * event-loop turn (or INGEST_BATCH_WAIT_MS), written by one storage task, and each request learns
 * its ids only after that batch COMMITted. A request's events never straddle two batches.
 */
import { AppError } from '../errors.ts';
import type { DbFailure, NewEvent, Result } from '../protocol/storage.ts';
import type { StoragePool } from './storage-pool.ts';

export interface IngestBatcherOptions {
  readonly batchMax: number;
  readonly batchWaitMs: number;
  readonly queueMax: number;
}

export interface IngestBatcher {
  /** Resolves with the events' ids in order once stored; rejects OVERLOADED when the queue is full. */
  submit(events: readonly NewEvent[]): Promise<Result<readonly number[], DbFailure>>;
  /** Events accepted but not yet committed or failed. */
  pending(): number;
  /** Flushes what is gathered and resolves when every submitted event is settled. */
  drain(): Promise<void>;
}

interface Waiter {
  readonly count: number;
  readonly resolve: (result: Result<readonly number[], DbFailure>) => void;
  readonly reject: (error: unknown) => void;
}

export function createIngestBatcher(
  pool: StoragePool,
  options: IngestBatcherOptions,
): IngestBatcher {
  let events: NewEvent[] = [];
  let waiters: Waiter[] = [];
  let scheduled = false;
  let pendingEvents = 0;
  const inFlight = new Set<Promise<void>>();
  const overloaded = new AppError('OVERLOADED', 'Ingest queue is full, retry later', undefined, {
    'Retry-After': '1',
  });

  const flush = (): void => {
    scheduled = false;
    if (events.length === 0) return;
    const batch = events;
    const batchWaiters = waiters;
    events = [];
    waiters = [];
    const write = pool.run('insertEvents', { events: batch }).then(
      (result) => {
        let offset = 0;
        for (const waiter of batchWaiters) {
          waiter.resolve(
            result.ok
              ? { ok: true, value: result.value.slice(offset, offset + waiter.count) }
              : result,
          );
          offset += waiter.count;
        }
      },
      (error: unknown) => {
        for (const waiter of batchWaiters) waiter.reject(error);
      },
    );
    const settled = write.finally(() => {
      pendingEvents -= batch.length;
      inFlight.delete(settled);
    });
    inFlight.add(settled);
  };

  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    if (options.batchWaitMs === 0) setImmediate(flush);
    else setTimeout(flush, options.batchWaitMs);
  };

  return {
    submit(batch) {
      if (pendingEvents + batch.length > options.queueMax) return Promise.reject(overloaded);
      if (events.length > 0 && events.length + batch.length > options.batchMax) flush();
      pendingEvents += batch.length;
      return new Promise((resolve, reject) => {
        for (const event of batch) events.push(event);
        waiters.push({ count: batch.length, resolve, reject });
        if (events.length >= options.batchMax) flush();
        else schedule();
      });
    },
    pending: () => pendingEvents,
    async drain() {
      flush();
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
  };
}
