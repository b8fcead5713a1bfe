/**
 * @module Retention (issue 23), from the front thread: one job per process, off the ingest path.
 * At start and every RETENTION_EVERY_MS it has a storage worker create the partitions of `events`
 * due ahead and drop those past EVENTS_RETENTION_DAYS (one short transaction each), then prune the
 * count rows of dropped time and, with ALERTS_RETENTION_DAYS, the resolved alerts past it: each in
 * statements of RETENTION_CHUNK rows, at most RETENTION_CHUNKS_PER_RUN of them per run.
 */
import { DAY_MS, type MaintenanceDone } from '../domain/event-partitions.ts';
import type { Logger } from '../log.ts';
import { REAL_TIMERS, type Timers } from '../timers.ts';
import type { StorageInput, StorageOperation, StorageOutput } from '../protocol/storage/index.ts';

/** Often enough that a failed run (a lock not had within a second) is retried long before due. */
export const RETENTION_EVERY_MS = 10 * 60_000;
export const RETENTION_CHUNK = 5_000;
/**
 * A day of 5,000 events/s over 1,000 types leaves about 86,000,000 second-level count rows to
 * prune: 10,000,000 rows a run (each statement short) keeps up with that, and a run stays bounded.
 */
export const RETENTION_CHUNKS_PER_RUN = 2_000;

type RetentionOperation = Extract<
  StorageOperation,
  'maintainEventPartitions' | 'pruneEventCounts' | 'pruneAlerts'
>;

/** What the job asks of the storage pool. */
export interface RetentionRunner {
  run<K extends RetentionOperation>(name: K, input: StorageInput<K>): Promise<StorageOutput<K>>;
}

export interface RetentionJobOptions {
  /** Days of events kept (whole partitions dropped past it); null: everything is kept. */
  readonly eventsRetentionDays: number | null;
  /** Days a resolved alert is kept; null: every alert is kept. */
  readonly alertsRetentionDays: number | null;
  readonly log: Logger;
  /** Epoch ms, the clock partitions and retention are measured on; absent: Date.now. */
  readonly clock?: () => number;
  readonly timers?: Pick<Timers, 'setInterval' | 'clearInterval'>;
}

/** One run's work: the partitions created and dropped, count rows and alerts deleted. */
export interface RetentionRun extends MaintenanceDone {
  readonly countRows: number;
  readonly alerts: number;
}

export interface RetentionJob {
  /** One run now (a periodic tick is skipped while a run is in progress). */
  run(): Promise<RetentionRun>;
  stop(): void;
}

export function startRetentionJob(
  pool: RetentionRunner,
  options: RetentionJobOptions,
): RetentionJob {
  const clock = options.clock ?? Date.now;
  const timers = options.timers ?? REAL_TIMERS;
  const { log } = options;
  let running: Promise<RetentionRun> | null = null;
  let stopped = false;

  /** Runs chunks of `prune` until one deletes fewer than a chunk; answers how many went. */
  const chunks = async (what: string, prune: () => Promise<StorageOutput<'pruneAlerts'>>) => {
    let deleted = 0;
    for (let n = 0; n < RETENTION_CHUNKS_PER_RUN && !stopped; n++) {
      const result = await prune();
      if (!result.ok) {
        log.warn({ reason: result.message }, `pruning ${what} failed; the next run retries`);
        break;
      }
      deleted += result.value;
      if (result.value < RETENTION_CHUNK) break;
    }
    return deleted;
  };

  const work = async (): Promise<RetentionRun> => {
    const now = clock();
    const retentionDays = options.eventsRetentionDays;
    const maintained = await pool.run('maintainEventPartitions', { now, retentionDays });
    if (!maintained.ok)
      log.warn(
        { reason: maintained.message },
        'partition maintenance failed; the next run retries',
      );
    const done = maintained.ok ? maintained.value : { created: [], dropped: [] };
    if (done.created.length > 0 || done.dropped.length > 0) log.info(done, 'events partitions');
    const countRows =
      retentionDays === null
        ? 0
        : await chunks('event counts', () =>
            pool.run('pruneEventCounts', { limit: RETENTION_CHUNK }),
          );
    const alertDays = options.alertsRetentionDays;
    const before = alertDays === null ? 0 : now - alertDays * DAY_MS;
    const alerts =
      alertDays === null
        ? 0
        : await chunks('alerts', () => pool.run('pruneAlerts', { before, limit: RETENTION_CHUNK }));
    return { ...done, countRows, alerts };
  };

  const run = (): Promise<RetentionRun> =>
    (running ??= work().finally(() => {
      running = null;
    }));

  const tick = (): void => {
    if (running === null && !stopped)
      void run().catch((error: unknown) => log.warn({ err: error }, 'retention run failed'));
  };
  const interval = timers.setInterval(tick, RETENTION_EVERY_MS);
  tick();

  return {
    run,
    stop() {
      stopped = true;
      timers.clearInterval(interval);
    },
  };
}
