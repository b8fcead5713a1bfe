/**
 * Storage worker (piscina thread): owns its postgres.js client and all SQL. Its default export
 * runs one StorageTask through the table of handlers (storage/handlers.ts: one module per area of
 * src/protocol/storage/); failures return as data. The ingest hot path has files of its own:
 * storage/ingest.ts (the group commit; in cluster mode the batch number, outbox row and notice,
 * storage/cluster-link.ts), storage/stored-events.ts (committed events go straight to the metrics
 * actor over a BroadcastChannel, those of the same 50 ms together) and storage/count-fold.ts (page
 * counts folded a second later, and once at start).
 */
import { threadId, workerData } from 'node:worker_threads';
import { connect } from '../src/db/connect.ts';
import type { MetricEvent } from '../src/domain/event.ts';
import { nameThisThread, THREAD_NAMES } from '../src/telemetry/thread-name.ts';
import { createLogger } from '../src/log.ts';
import type {
  StorageOperation,
  StorageOutput,
  StorageTask,
  StorageWorkerData,
} from '../src/protocol/storage/index.ts';
import { openClusterLink } from './storage/cluster-link.ts';
import { guardedBy, type StorageContext } from './storage/context.ts';
import { startCountFold } from './storage/count-fold.ts';
import { storageHandlers } from './storage/handlers.ts';
import { storedEventsFlush } from './storage/stored-events.ts';
import type { InsertOutcome } from '../src/domain/idempotency.ts';

const data = workerData as StorageWorkerData;
nameThisThread(THREAD_NAMES.storage);
const log = createLogger(data.logLevel, `storage-${threadId}`);
const context: StorageContext = {
  sql: connect({
    url: data.databaseUrl,
    schema: data.schema,
    max: data.connections,
    queryTimeoutMs: data.queryTimeoutMs,
  }),
  guarded: guardedBy(log),
};
const metrics = new BroadcastChannel(data.metricsChannel);
metrics.unref();

const toMetricsActor = storedEventsFlush(metrics);
const scheduleFold = startCountFold(context);
const handlers = storageHandlers(context, {
  committed: (metricEvents: readonly MetricEvent[], outcomes: readonly InsertOutcome[]): void => {
    toMetricsActor(metricEvents, outcomes);
    scheduleFold();
  },
  cluster: data.cluster === undefined ? null : openClusterLink(data.cluster),
});

/** Runs one operation (piscina calls the default export with each task). */
export default function run<K extends StorageOperation>(
  task: StorageTask<K>,
): Promise<StorageOutput<K>> {
  return handlers[task.op](task.input);
}
