/**
 * Backtest thread (one per backtest, docs/backtest.md): reads the range's stored events and
 * silences on a connection of its own, replays them through the live evaluator's code
 * (runBacktest), posts the one result and ends. Neither the front thread, which serves ingest, nor
 * the metrics actor, which evaluates the live rules every second, spends a cycle on it.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { connect } from '../src/db/connect.ts';
import { eventsReceived } from '../src/db/backtest-repository.ts';
import { anomalyHistory } from '../src/db/anomaly-history-repository.ts';
import { silencesOverlapping } from '../src/db/silences-repository.ts';
import { runBacktest } from '../src/domain/rules/backtest/run-backtest.ts';
import { nameThisThread, THREAD_NAMES } from '../src/telemetry/thread-name.ts';
import { lowerThisThread } from '../src/telemetry/thread-priority.ts';
import { createLogger } from '../src/log.ts';
import type { BacktestMessage, BacktestWorkerData } from '../src/protocol/backtest.ts';

if (isMainThread || parentPort === null)
  throw new Error('backtest.worker.ts runs in a worker thread');
const port = parentPort;
const data = workerData as BacktestWorkerData;
nameThisThread(THREAD_NAMES.backtest);
// Ingest and the live evaluation come first: the replay takes what CPU they leave.
lowerThisThread();
const log = createLogger(data.logLevel, 'backtest');

/** Silences read at most: more overlapping one week would be a mistake, not a plan. */
const MAX_SILENCES = 10_000;

const started = performance.now();
const post = (message: BacktestMessage): void => port.postMessage(message);
const sql = connect({
  url: data.databaseUrl,
  schema: data.schema,
  max: 1,
  queryTimeoutMs: data.queryTimeoutMs,
});

try {
  const { job } = data;
  const silences = await silencesOverlapping(sql, job.from, job.to, MAX_SILENCES);
  const result = await runBacktest(job, {
    chunks: (from, to, detail) => eventsReceived(sql, from, to, detail),
    silences,
    elapsed: () => performance.now() - started,
    anomalyHistory: (request) => anomalyHistory(sql, request),
  });
  post({ type: 'done', result });
} catch (error) {
  log.error({ err: error }, 'backtest failed');
  const { name, message } = error instanceof Error ? error : new Error(String(error));
  post({ type: 'failed', error: { name, message } });
} finally {
  await sql.end({ timeout: 1 });
}
