/** @module The periodic jobs on the storage pool: idempotency keys past their window, retention. */
import { startIdempotencyPruner } from '../actors/idempotency-pruner.ts';
import { startRetentionJob } from '../actors/retention-job.ts';
import type { StoragePool } from '../actors/storage-pool.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import type { Timers } from '../timers.ts';
import type { StopStack } from './stop-stack.ts';

/** Timers and clocks a test may inject (ServiceHooks). */
export interface JobHooks {
  readonly idempotencyTimers?: Pick<Timers, 'setInterval' | 'clearInterval'>;
  readonly idempotencyClock?: () => number;
  readonly retentionTimers?: Pick<Timers, 'setInterval' | 'clearInterval'>;
  readonly retentionClock?: () => number;
}

export function startJobs(
  config: Config,
  pool: StoragePool,
  hooks: JobHooks,
  log: Logger,
  stack: StopStack,
): void {
  const pruner = startIdempotencyPruner(pool, {
    windowHours: config.IDEMPOTENCY_WINDOW_HOURS,
    log,
    timers: hooks.idempotencyTimers,
    clock: hooks.idempotencyClock,
  });
  const retention = startRetentionJob(pool, {
    eventsRetentionDays: config.EVENTS_RETENTION_DAYS ?? null,
    alertsRetentionDays: config.ALERTS_RETENTION_DAYS ?? null,
    log,
    timers: hooks.retentionTimers,
    clock: hooks.retentionClock,
  });
  stack.push('periodic jobs', () => {
    pruner.stop();
    retention.stop();
  });
}
