/**
 * @module Pruning of idempotency keys past IDEMPOTENCY_WINDOW_HOURS (issue 22), from the front
 * thread: one pruner per process, whatever the number of storage workers. Every PRUNE_EVERY_MS
 * it deletes the keys stored before now minus the window, in statements of PRUNE_CHUNK rows (each
 * a short transaction), at most PRUNE_CHUNKS_PER_RUN of them per run: the work of a run is
 * bounded, and the table holds about one window of keys (docs/operations.md).
 */
import { pruneBefore } from '../domain/idempotency.ts';
import type { Logger } from '../log.ts';
import { REAL_TIMERS, type Timers } from '../timers.ts';
import type { StorageInput, StorageOutput } from '../protocol/storage/index.ts';

export const PRUNE_EVERY_MS = 10_000;
export const PRUNE_CHUNK = 5_000;
export const PRUNE_CHUNKS_PER_RUN = 50;

export interface IdempotencyPrunerOptions {
  readonly windowHours: number;
  readonly log: Logger;
  /** Epoch ms, the clock the window is measured on; absent: Date.now. */
  readonly clock?: () => number;
  readonly timers?: Pick<Timers, 'setInterval' | 'clearInterval'>;
  /** Rows per statement and statements per run; absent: PRUNE_CHUNK and PRUNE_CHUNKS_PER_RUN. */
  readonly chunk?: number;
  readonly chunksPerRun?: number;
}

/** What the pruner asks of the storage pool. */
export interface PruneRunner {
  run(
    name: 'pruneIdempotencyKeys',
    input: StorageInput<'pruneIdempotencyKeys'>,
  ): Promise<StorageOutput<'pruneIdempotencyKeys'>>;
}

export interface IdempotencyPruner {
  /** One run now (the periodic one skips a tick while a run is in progress); keys deleted. */
  prune(): Promise<number>;
  stop(): void;
}

export function startIdempotencyPruner(
  pool: PruneRunner,
  options: IdempotencyPrunerOptions,
): IdempotencyPruner {
  const clock = options.clock ?? Date.now;
  const timers = options.timers ?? REAL_TIMERS;
  const chunk = options.chunk ?? PRUNE_CHUNK;
  const chunksPerRun = options.chunksPerRun ?? PRUNE_CHUNKS_PER_RUN;
  let running: Promise<number> | null = null;
  let stopped = false;

  const run = async (): Promise<number> => {
    const before = pruneBefore(clock(), options.windowHours);
    let deleted = 0;
    for (let n = 0; n < chunksPerRun && !stopped; n++) {
      const result = await pool.run('pruneIdempotencyKeys', { before, limit: chunk });
      if (!result.ok) {
        options.log.warn(
          { reason: result.message },
          'pruning idempotency keys failed; the next run retries',
        );
        break;
      }
      deleted += result.value;
      if (result.value < chunk) break;
    }
    return deleted;
  };

  const prune = (): Promise<number> =>
    (running ??= run().finally(() => {
      running = null;
    }));

  const interval = timers.setInterval(() => {
    if (running === null)
      void prune().catch((error: unknown) =>
        options.log.warn({ err: error }, 'pruning idempotency keys failed'),
      );
  }, PRUNE_EVERY_MS);

  return {
    prune,
    stop() {
      stopped = true;
      timers.clearInterval(interval);
    },
  };
}
