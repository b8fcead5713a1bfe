/**
 * Reads worker (piscina thread of a reads pool: one pool replays PATTERN rule tests, one reads
 * event pages): the expensive reads a client can ask for, on postgres.js connections of its own, so that a slow or
 * failing read never holds a connection, a thread or a queue place that ingest needs. Each read
 * runs on a reserved connection that is cleaned after a failure (src/db/sparse-result-guard.ts).
 */
import { threadId, workerData } from 'node:worker_threads';
import { connect } from '../src/db/connect.ts';
import { describeDbError } from '../src/db/db-failure.ts';
import { listEvents as readEvents } from '../src/db/events-repository.ts';
import {
  eventHistogram as readHistogram,
  searchEvents as readSearch,
} from '../src/db/event-search-repository.ts';
import { replayEvents } from '../src/db/pattern-replay-repository.ts';
import { hasHoles, onGuardedConnection } from '../src/db/sparse-result-guard.ts';
import {
  PatternReplayer,
  REPLAY_MAX_EVENTS,
  REPLAY_MINUTES,
} from '../src/domain/rules/kinds/pattern/pattern-replay.ts';
import type { DetailedMetricEvent } from '../src/domain/event.ts';
import { nameThisThread, THREAD_NAMES } from '../src/telemetry/thread-name.ts';
import { lowerThisThread } from '../src/telemetry/thread-priority.ts';
import { createLogger } from '../src/log.ts';
import type {
  DbFailure,
  ReadHandlers,
  ReadsWorkerData,
  Result,
} from '../src/protocol/storage/index.ts';

const data = workerData as ReadsWorkerData;
nameThisThread(THREAD_NAMES.reads);
// Ingest and the live evaluation come first: a replay takes what CPU they leave. Event pages are
// short and a client waits on each: their threads keep the process's priority.
if (data.background) lowerThisThread();
const log = createLogger(data.logLevel, `reads-${threadId}`);
const sql = connect({
  url: data.databaseUrl,
  schema: data.schema,
  max: data.connections,
  queryTimeoutMs: data.queryTimeoutMs,
});

async function guarded<T>(op: string, run: () => Promise<T>): Promise<Result<T, DbFailure>> {
  try {
    const value = await run();
    if (hasHoles(value)) {
      log.error({ op }, 'the database driver answered a sparse result; treated as a failure');
      return { ok: false, code: 'DB_FAILURE', message: 'the database answered a malformed result' };
    }
    return { ok: true, value };
  } catch (error) {
    log.warn({ err: error, op }, 'read failed');
    return { ok: false, code: 'DB_FAILURE', message: describeDbError(error) };
  }
}

/**
 * Of a replay's time, the share it may work (reading a page, PostgreSQL producing it, matching it);
 * the rest it pauses between pages. The lowest thread priority leaves ingest the CPU of this
 * process, not that of PostgreSQL, which serves both: on two shared cores, replays working flat
 * out took ingest p99 past 1.5x its value alone (docs/benchmarks.md, hostile reads).
 */
const REPLAY_DUTY = 0.5;

/** A pause after each page, as long as the page took times (1 - duty) / duty. */
function paced(duty: number): () => Promise<void> {
  let since = performance.now();
  return async () => {
    const worked = performance.now() - since;
    await new Promise((resolve) => setTimeout(resolve, (worked * (1 - duty)) / duty));
    since = performance.now();
  };
}

export const replayPattern: ReadHandlers['replayPattern'] = ({ config, now }) =>
  guarded('replayPattern', () =>
    onGuardedConnection(sql, async (connection) => {
      const replayer = new PatternReplayer(config);
      const from = now - REPLAY_MINUTES * 60_000;
      const input = { types: replayer.reads(), since: from, limit: REPLAY_MAX_EVENTS };
      const observe = (event: DetailedMetricEvent): void => replayer.observe(event);
      const read = await replayEvents(connection, input, observe, paced(REPLAY_DUTY));
      return replayer.finish(from, now, read >= REPLAY_MAX_EVENTS);
    }),
  );

export const listEvents: ReadHandlers['listEvents'] = ({ eventType, page, size }) =>
  guarded('listEvents', () =>
    onGuardedConnection(sql, (connection) => readEvents(connection, eventType, page, size)),
  );

export const searchEvents: ReadHandlers['searchEvents'] = (input) =>
  guarded('searchEvents', () =>
    onGuardedConnection(sql, (connection) => readSearch(connection, input)),
  );

export const eventHistogram: ReadHandlers['eventHistogram'] = (input) =>
  guarded('eventHistogram', () =>
    onGuardedConnection(sql, (connection) => readHistogram(connection, input)),
  );

// Checks that this module implements every handler of the protocol with its exact type.
({ replayPattern, listEvents, searchEvents, eventHistogram }) satisfies ReadHandlers;
