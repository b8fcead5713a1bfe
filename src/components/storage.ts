/**
 * @module The storage part: the storage pool (ingest's threads and connections), group commit, and
 * the two reads pools, whose threads, connections and queues are apart from ingest's.
 */
import type { RunningCluster } from '../actors/cluster-link.ts';
import { createIngestBatcher, type IngestBatcher } from '../actors/ingest-batcher.ts';
import { startReadsPool, type ReadsPool } from '../actors/reads-pool.ts';
import { startStoragePool, type StoragePool } from '../actors/storage-pool.ts';
import type { Config } from '../config.ts';
import type { StartupTimings } from '../startup-timings.ts';
import type { MetricsPart } from './metrics.ts';
import type { StopStack } from './stop-stack.ts';

/**
 * How long the storage threads may take to load and answer a first ping at start (their code is
 * compiled on load under tsx, and the machine may be busy); past it the start fails, saying so.
 */
const STORAGE_START_DEADLINE_MS = 60_000;

export interface StoragePart {
  readonly pool: StoragePool;
  readonly batcher: IngestBatcher;
  /** PATTERN rule-test replays: CPU-heavy, lowest priority. */
  readonly replays: ReadsPool;
  /** Event pages, searches and exports. */
  readonly pages: ReadsPool;
}

export async function startStorage(
  config: Config,
  databaseUrl: string,
  metrics: MetricsPart,
  cluster: RunningCluster | null,
  stack: StopStack,
  timings: StartupTimings,
): Promise<StoragePart> {
  const pool = startStoragePool({
    threads: config.STORAGE_WORKERS,
    // The batcher bounds events; this bounds tasks (reads included) a little above it.
    maxQueuedTasks: config.INGEST_QUEUE_MAX + 1000,
    closeTimeoutMs: config.SHUTDOWN_GRACE_MS,
    timeoutMs: config.DB_QUERY_TIMEOUT_MS,
    workerData: {
      databaseUrl,
      schema: config.DATABASE_SCHEMA,
      connections: config.DB_CONNECTIONS_PER_WORKER,
      queryTimeoutMs: config.DB_QUERY_TIMEOUT_MS,
      logLevel: config.LOG_LEVEL,
      metricsChannel: metrics.channel,
      ...(cluster === null ? {} : { cluster: cluster.storage }),
    },
  });
  // The actor first, whatever stopped before: an alert fired in between would find no pool.
  stack.push('storage pool', async () => {
    await metrics.stop();
    await pool.close();
  });
  const batcher = createIngestBatcher(pool, {
    batchMax: config.INGEST_BATCH_MAX,
    batchWaitMs: config.INGEST_BATCH_WAIT_MS,
    queueMax: config.INGEST_QUEUE_MAX,
    queueMaxBytes: config.INGEST_QUEUE_MAX_BYTES,
    maxInFlight: config.STORAGE_WORKERS * config.DB_CONNECTIONS_PER_WORKER,
    writeTimeoutMs: config.DB_QUERY_TIMEOUT_MS,
    eventDetail: () => metrics.actor.eventDetail(),
    stamped: config.INGEST_STAGE_TIMINGS,
  });
  const { replays, pages } = startReadsPools(config, databaseUrl);
  stack.push('reads pools', () => Promise.all([replays.close(), pages.close()]));
  const notStarted = await pool.started(STORAGE_START_DEADLINE_MS);
  if (notStarted !== null) throw new Error(`the storage workers did not start: ${notStarted}`);
  timings.lap('threads');
  return { pool, batcher, replays, pages };
}

/**
 * Expensive reads on threads, connections and queues of their own, one pool for rule-test replays
 * (CPU-heavy, lowest priority) and one for event pages: neither can wait for or hold what ingest
 * needs, nor a replay delay a page (docs/security.md, Limits).
 */
function startReadsPools(
  config: Config,
  databaseUrl: string,
): { replays: ReadsPool; pages: ReadsPool } {
  const readsPool = (background: boolean, maxQueuedTasks: number, timeoutMs: number) =>
    startReadsPool({
      threads: config.READS_WORKERS,
      maxQueuedTasks,
      closeTimeoutMs: config.SHUTDOWN_GRACE_MS,
      timeoutMs,
      workerData: {
        databaseUrl,
        schema: config.DATABASE_SCHEMA,
        connections: config.READS_CONNECTIONS_PER_WORKER,
        queryTimeoutMs: config.DB_QUERY_TIMEOUT_MS,
        logLevel: config.LOG_LEVEL,
        background,
      },
    });
  // A replay pauses between its pages (half its time, workers/reads.worker.ts): each page still
  // has DB_QUERY_TIMEOUT_MS, the whole replay three times that.
  const replays = readsPool(true, config.RULE_TEST_MAX_RUNNING, 3 * config.DB_QUERY_TIMEOUT_MS);
  const pages = readsPool(false, config.EVENT_PAGES_MAX_RUNNING, config.DB_QUERY_TIMEOUT_MS);
  return { replays, pages };
}
