/**
 * @module The front thread's face of the storage pool (piscina): typed `run(name, input)` over the
 * operations of src/protocol/storage/, a fixed number of threads and a bounded task queue. Each
 * operation goes to the worker as one StorageTask, which its table of handlers runs.
 */
import { AppError } from '../errors.ts';
import { startDatabasePool } from './database-pool.ts';
import type {
  StorageInput,
  StorageOperation,
  StorageOutput,
  StorageTask,
  StorageWorkerData,
} from '../protocol/storage/index.ts';

export interface StoragePool {
  run<K extends StorageOperation>(name: K, input: StorageInput<K>): Promise<StorageOutput<K>>;
  /**
   * Resolves once every thread has loaded and answered a ping, or with why not within
   * `deadlineMs`. Called once at start: a thread's first task also pays for loading its code,
   * which on a busy machine can take longer than an operation's own timeout.
   */
  started(deadlineMs: number): Promise<string | null>;
  /** Tasks waiting for a free worker slot. */
  queued(): number;
  /** Threads and tasks now, for a scrape (GET /metrics). */
  stats(): StoragePoolStats;
  /** Waits for running tasks (at most closeTimeoutMs), then ends the threads. */
  close(): Promise<void>;
}

export interface StoragePoolStats {
  readonly threads: number;
  /** Tasks a worker is running (each worker runs up to its connections at once). */
  readonly running: number;
  /** Tasks waiting for a free worker slot. */
  readonly queued: number;
  /** Tasks finished since start, as piscina counts them. */
  readonly completed: number;
}

export interface StoragePoolOptions {
  readonly threads: number;
  readonly maxQueuedTasks: number;
  readonly closeTimeoutMs: number;
  /**
   * An operation not answered this long after it was asked answers DB_FAILURE 'database timeout'
   * (a frozen server never trips statement_timeout). Not for inserts: the ingest batcher keeps
   * its own deadline per request, and must see the real end of a write to keep its bounds.
   */
  readonly timeoutMs: number;
  readonly workerData: StorageWorkerData;
}

const TIMED_OUT = { ok: false, code: 'DB_FAILURE', message: 'database timeout' } as const;
const ping: StorageTask<'ping'> = { op: 'ping', input: {} };

export function startStoragePool(options: StoragePoolOptions): StoragePool {
  const pool = startDatabasePool({ ...options, worker: 'storage' });
  /**
   * Tasks handed to piscina and not yet settled (running, or in its queue), counted to their real
   * end: an operation answered by its deadline may still be running.
   */
  let submitted = 0;
  const settled = (): void => {
    submitted--;
  };
  const tracked = <T>(task: Promise<T>): Promise<T> => {
    submitted++;
    task.then(settled, settled);
    return task;
  };
  return {
    async run(name, input) {
      let timer: NodeJS.Timeout | undefined;
      try {
        const request: StorageTask<typeof name> = { op: name, input };
        const task = tracked(pool.run(request) as Promise<StorageOutput<typeof name>>);
        if (name === 'insertEvents') return await task;
        const deadline = new Promise<never>((resolve) => {
          timer = setTimeout(() => resolve(TIMED_OUT as never), options.timeoutMs);
        });
        return await Promise.race([task, deadline]);
      } catch (error) {
        if (error instanceof Error && error.message === 'Task queue is at limit') {
          throw new AppError('OVERLOADED', 'Storage queue is full, retry later', undefined, {
            'Retry-After': '1',
          });
        }
        throw error;
      } finally {
        clearTimeout(timer);
      }
    },
    async started(deadlineMs) {
      let timer: NodeJS.Timeout | undefined;
      // One ping per thread, sent together: piscina hands each to its least busy thread.
      const pings = Array.from({ length: options.threads }, () =>
        (pool.run(ping) as Promise<StorageOutput<'ping'>>).then((result) =>
          result.ok ? null : result.message,
        ),
      );
      const deadline = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`not started within ${deadlineMs} ms`), deadlineMs);
      });
      try {
        const answers = Promise.all(pings).then(
          (reasons) => reasons.find((r) => r !== null) ?? null,
        );
        return await Promise.race([answers, deadline]);
      } finally {
        clearTimeout(timer);
      }
    },
    queued: () => pool.queueSize,
    stats: () => ({
      threads: pool.threads.length,
      running: Math.max(0, submitted - pool.queueSize),
      queued: pool.queueSize,
      completed: pool.completed,
    }),
    close: () => pool.close(),
  };
}
