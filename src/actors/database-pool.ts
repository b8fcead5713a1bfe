/**
 * @module The piscina pool both database pools are (storage, reads): fixed threads that live
 * for the whole run, each running up to its own connections' worth of tasks at once.
 */
import { Piscina } from 'piscina';
import { workerEntry, workerExecArgv } from './worker-entry.ts';

export interface DatabasePoolOptions<D extends { readonly connections: number }> {
  readonly worker: 'storage' | 'reads';
  readonly threads: number;
  readonly maxQueuedTasks: number;
  readonly closeTimeoutMs: number;
  readonly workerData: D;
}

export const startDatabasePool = <D extends { readonly connections: number }>(
  options: DatabasePoolOptions<D>,
): Piscina =>
  new Piscina({
    filename: workerEntry(options.worker).href,
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
