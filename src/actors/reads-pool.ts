/**
 * @module The front thread's face of the reads pool (workers/reads.worker.ts): a small piscina pool
 * with threads, PostgreSQL connections and a task queue of its own, for the expensive reads a
 * client can ask for. A replay of 200,000 events or a deep page then waits for, and fails on,
 * these only: never on the storage pool's connections and queue, which ingest needs.
 */
import { AppError } from '../errors.ts';
import type { ReadHandlers, ReadOperation, ReadsWorkerData } from '../protocol/storage/index.ts';
import { startDatabasePool } from './database-pool.ts';

type ReadInput<K extends ReadOperation> = Parameters<ReadHandlers[K]>[0];
type ReadOutput<K extends ReadOperation> = Awaited<ReturnType<ReadHandlers[K]>>;

export interface ReadsPool {
  /**
   * Answers by the deadline at the latest; `settled` is called when the read has really ended (it
   * may go on past its answer), so that whoever bounds reads counts it until then.
   */
  run<K extends ReadOperation>(
    name: K,
    input: ReadInput<K>,
    settled?: () => void,
  ): Promise<ReadOutput<K>>;
  /** Waits for running reads (at most closeTimeoutMs), then ends the threads. */
  close(): Promise<void>;
}

export interface ReadsPoolOptions {
  readonly threads: number;
  /** Reads waiting for a connection; the read slots (src/http/read-slots.ts) bound them first. */
  readonly maxQueuedTasks: number;
  readonly closeTimeoutMs: number;
  /** A read not answered this long after it was asked answers DB_FAILURE 'database timeout'. */
  readonly timeoutMs: number;
  readonly workerData: ReadsWorkerData;
}

const TIMED_OUT = { ok: false, code: 'DB_FAILURE', message: 'database timeout' } as const;

export function startReadsPool(options: ReadsPoolOptions): ReadsPool {
  const pool = startDatabasePool({ ...options, worker: 'reads' });
  return {
    async run(name, input, settled) {
      let timer: NodeJS.Timeout | undefined;
      let handed = false;
      try {
        const task = pool.run(input, { name }) as Promise<never>;
        handed = true;
        if (settled !== undefined) task.then(settled, settled);
        const deadline = new Promise<never>((resolve) => {
          timer = setTimeout(() => resolve(TIMED_OUT as never), options.timeoutMs);
        });
        return await Promise.race([task, deadline]);
      } catch (error) {
        if (!handed) settled?.();
        if (error instanceof Error && error.message === 'Task queue is at limit') {
          throw new AppError('OVERLOADED', 'The reads queue is full, retry later', undefined, {
            'retry-after': '1',
          });
        }
        throw error;
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => pool.close(),
  };
}
