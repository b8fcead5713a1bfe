/**
 * Storage worker (piscina thread): owns its postgres.js client and all SQL. One export per
 * operation of StorageHandlers; failures return as data. After each COMMIT the stored events go
 * straight to the metrics actor over a BroadcastChannel (the front thread does not relay them).
 */
import { threadId, workerData } from 'node:worker_threads';
import { connect } from '../src/db/connect.ts';
import { describeDbError } from '../src/db/db-failure.ts';
import * as events from '../src/db/events-repository.ts';
import type { MetricEvent } from '../src/domain/event.ts';
import { createLogger } from '../src/log.ts';
import type { MetricsChannelMessage } from '../src/protocol/metrics-actor.ts';
import type {
  DbFailure,
  Result,
  StorageHandlers,
  StorageWorkerData,
} from '../src/protocol/storage.ts';

const data = workerData as StorageWorkerData;
const log = createLogger(data.logLevel, `storage-${threadId}`);
const sql = connect({
  url: data.databaseUrl,
  schema: data.schema,
  max: data.connections,
  queryTimeoutMs: data.queryTimeoutMs,
});
const metrics = new BroadcastChannel(data.metricsChannel);
metrics.unref();
/** Each live worker adds to its own counter rows (see the events migration). */
const SHARD = threadId % 64;

async function guarded<T>(op: string, run: () => Promise<T>): Promise<Result<T, DbFailure>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    log.error({ err: error, op }, 'storage operation failed');
    return { ok: false, code: 'DB_FAILURE', message: describeDbError(error) };
  }
}

export const insertEvents: StorageHandlers['insertEvents'] = async ({ events: batch }) => {
  const writtenAt = Date.now();
  const result = await guarded('insertEvents', () => events.insertEvents(sql, batch, SHARD, writtenAt));
  if (result.ok) {
    const stored: MetricEvent[] = batch.map((e) => ({
      eventType: e.eventType,
      source: e.source,
      userId: e.userId,
      severity: e.severity,
      receivedAt: e.receivedAt,
      latencyMs: Math.max(0, writtenAt - e.receivedAt),
    }));
    const message: MetricsChannelMessage = { type: 'events-stored', events: stored };
    metrics.postMessage(message);
  }
  return result;
};

export const listEvents: StorageHandlers['listEvents'] = ({ eventType, page, size }) =>
  guarded('listEvents', () => events.listEvents(sql, eventType, page, size));

export const getEvent: StorageHandlers['getEvent'] = async ({ id }) => {
  const result = await guarded('getEvent', () => events.getEvent(sql, id));
  if (!result.ok) return result;
  return result.value === null
    ? { ok: false, code: 'NOT_FOUND', message: 'Event not found' }
    : { ok: true, value: result.value };
};

export const ping: StorageHandlers['ping'] = () =>
  guarded('ping', async () => {
    await sql`SELECT 1`;
    return true as const;
  });

// Checks that this module implements every handler of the protocol with its exact type.
({ insertEvents, listEvents, getEvent, ping }) satisfies StorageHandlers;
