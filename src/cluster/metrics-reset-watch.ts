/**
 * @module A metrics reset made through any instance resets every instance (front thread, cluster
 * mode; docs/cluster.md). The reset route moves the database's metrics reset counter on, then
 * resets this instance's metrics at once; every instance polls the counter (counter-watch.ts,
 * every POLL_MS) and resets its own when it moved. Through PostgreSQL, so NATS being down does not
 * stop it. Each instance resets when it sees the move: for up to a poll they have counted slightly
 * different events since (docs/cluster.md says so).
 */
import type { MetricsActor } from '../actors/metrics-actor-client.ts';
import type { StoragePool } from '../actors/storage-pool.ts';
import type { Logger } from '../log.ts';
import type { DbFailure, Result } from '../protocol/storage/index.ts';
import type { Timers } from '../timers.ts';
import { watchCounter, type CounterWatch } from './counter-watch.ts';

export interface MetricsResetWatch extends CounterWatch {
  /**
   * Resets every instance: moves the counter on, then this instance's metrics. A failed move
   * resets none (the answer says why), so the instances never stay apart.
   */
  resetEverywhere(): Promise<Result<true, DbFailure>>;
}

export function watchMetricsResets(
  pool: Pick<StoragePool, 'run'>,
  metrics: Pick<MetricsActor, 'reset'>,
  log: Logger,
  timers?: Pick<Timers, 'setInterval' | 'clearInterval'>,
): MetricsResetWatch {
  /** The value this instance's latest reset moved the counter to: the poll need not reset again. */
  let own: number | null = null;
  const watch = watchCounter(
    {
      name: 'metrics reset',
      read: () => pool.run('metricsResets', {}),
      moved: (value, previous) => {
        // The first read only learns the counter: a reset from before this start is not followed.
        // Moves up to this instance's own latest reset came before it: that reset covers them.
        const follow = previous !== null && (own === null || value > own);
        return follow ? metrics.reset() : undefined;
      },
    },
    log,
    timers,
  );
  return {
    ...watch,
    async resetEverywhere() {
      const moved = await pool.run('countMetricsReset', {});
      if (!moved.ok) return moved;
      own = Math.max(own ?? moved.value, moved.value);
      await metrics.reset();
      return { ok: true, value: true };
    },
  };
}
