/**
 * @module The front thread's side of backtests: each runs on a worker thread of its own, started
 * for it and ended with it (a week's replay is CPU-bound for seconds: on the front thread it would
 * stall every request, on the metrics actor the live evaluation, and on a storage worker the
 * ingest writes queued behind it). How many may run is the caller's to bound (the backtest
 * route's read slots, src/http/read-slots.ts); a thread that has not answered by its budget plus a
 * grace period is terminated.
 */
import { Worker } from 'node:worker_threads';
import type { BacktestResult } from '../domain/rules/backtest/backtest-result.ts';
import type { BacktestJob } from '../domain/rules/backtest/run-backtest.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { BacktestMessage, BacktestWorkerData } from '../protocol/backtest.ts';
import { workerEntry, workerExecArgv } from './worker-entry.ts';

const WORKER_FILE = workerEntry('backtest');

/** Past its budget a thread still has this long to post what it did (it checks between chunks). */
const GRACE_MS = 10_000;
/** Heap of one backtest thread: a chunk of events, the rule's metrics (24 h) and the answer. */
const MAX_HEAP_MB = 256;

export interface BacktestRunnerOptions {
  readonly databaseUrl: string;
  readonly schema: string;
  readonly queryTimeoutMs: number;
  readonly logLevel: string;
  readonly log: Logger;
}

export interface BacktestRunner {
  /** Runs `job` on a thread of its own; settles once the thread has answered or was stopped. */
  run(job: BacktestJob): Promise<BacktestResult>;
  /** Ends the threads still running. */
  stop(): Promise<void>;
}

export function createBacktestRunner(options: BacktestRunnerOptions): BacktestRunner {
  const running = new Set<Worker>();

  const start = (job: BacktestJob): { worker: Worker; done: Promise<BacktestResult> } => {
    const workerData: BacktestWorkerData = {
      databaseUrl: options.databaseUrl,
      schema: options.schema,
      queryTimeoutMs: options.queryTimeoutMs,
      logLevel: options.logLevel,
      job,
    };
    const worker = new Worker(WORKER_FILE, {
      workerData,
      execArgv: workerExecArgv(),
      resourceLimits: { maxOldGenerationSizeMb: MAX_HEAP_MB },
    });
    const done = new Promise<BacktestResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          new AppError(
            'INTERNAL',
            `The backtest did not finish within its time budget (${job.budgetMs} ms) and was stopped`,
          ),
        );
        void worker.terminate();
      }, job.budgetMs + GRACE_MS);
      worker.on('message', (message: BacktestMessage) => {
        clearTimeout(timer);
        if (message.type === 'done') resolve(message.result);
        else reject(new AppError('INTERNAL', `The backtest failed: ${message.error.message}`));
      });
      worker.on('error', (error) => {
        clearTimeout(timer);
        options.log.error({ err: error }, 'backtest thread failed');
        reject(new AppError('INTERNAL', `The backtest failed: ${error.message}`));
      });
      worker.on('exit', () => {
        clearTimeout(timer);
        reject(new AppError('INTERNAL', 'The backtest stopped without an answer'));
      });
    });
    return { worker, done };
  };

  return {
    async run(job) {
      const { worker, done } = start(job);
      running.add(worker);
      try {
        return await done;
      } finally {
        running.delete(worker);
      }
    },
    async stop() {
      await Promise.all([...running.values()].map((worker) => worker.terminate()));
      running.clear();
    },
  };
}
