/**
 * @module The front thread's face of the storage pool (piscina): typed `run(name, input)` over the
 * handlers of src/protocol/storage.ts, a fixed number of threads and a bounded task queue.
 */
import { Piscina } from 'piscina';
import { AppError } from '../errors.ts';
import { workerExecArgv } from './worker-exec-argv.ts';
import type {
  StorageInput,
  StorageOperation,
  StorageOutput,
  StorageWorkerData,
} from '../protocol/storage.ts';

const WORKER_FILE = new URL('../../workers/storage.worker.ts', import.meta.url).href;

export interface StoragePool {
  run<K extends StorageOperation>(name: K, input: StorageInput<K>): Promise<StorageOutput<K>>;
  /** Tasks waiting for a free worker slot. */
  queued(): number;
  /** Waits for running tasks (at most closeTimeoutMs), then ends the threads. */
  close(): Promise<void>;
}

export interface StoragePoolOptions {
  readonly threads: number;
  readonly maxQueuedTasks: number;
  readonly closeTimeoutMs: number;
  readonly workerData: StorageWorkerData;
}

export function startStoragePool(options: StoragePoolOptions): StoragePool {
  const pool = new Piscina({
    filename: WORKER_FILE,
    minThreads: options.threads,
    maxThreads: options.threads,
    idleTimeout: Number.POSITIVE_INFINITY,
    // Each worker pipelines up to `connections` queries over its own postgres.js connections.
    concurrentTasksPerWorker: options.workerData.connections,
    maxQueue: options.maxQueuedTasks,
    // Workers hold sockets and timers: their event loops must keep turning between tasks.
    atomics: 'disabled',
    workerData: options.workerData,
    execArgv: workerExecArgv(),
    closeTimeout: options.closeTimeoutMs,
  });
  return {
    async run(name, input) {
      try {
        return (await pool.run(input, { name })) as never;
      } catch (error) {
        if (error instanceof Error && error.message === 'Task queue is at limit') {
          throw new AppError('OVERLOADED', 'Storage queue is full, retry later', undefined, {
            'Retry-After': '1',
          });
        }
        throw error;
      }
    },
    queued: () => pool.queueSize,
    close: () => pool.close(),
  };
}
