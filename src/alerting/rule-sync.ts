/**
 * @module Keeps the metrics actor's set of ACTIVE rules equal to the table (front thread): loaded
 * at start, after every rule change and after an actor restart. Reloads never overlap; changes
 * that arrive during one are folded into a single follow-up reload.
 */
import type { MetricsActor } from '../actors/metrics-actor-client.ts';
import type { StoragePool } from '../actors/storage-pool.ts';
import type { Logger } from '../log.ts';

export interface RuleSync {
  /** Schedules a reload; resolves when a reload that started after this call has finished. */
  changed(): Promise<void>;
}

export function createRuleSync(pool: StoragePool, metrics: MetricsActor, log: Logger): RuleSync {
  let running: Promise<void> | null = null;
  let again: Promise<void> | null = null;

  const load = async (): Promise<void> => {
    const result = await pool.run('activeRules', { now: Date.now() });
    if (!result.ok) {
      log.error(
        { reason: result.message },
        'could not load the active rules; keeping the previous set',
      );
      return;
    }
    await metrics.setRules(result.value);
  };

  const changed = (): Promise<void> => {
    if (running === null) {
      running = load().finally(() => {
        running = null;
      });
      return running;
    }
    // A reload is in flight and may have read the table before this change: run one more after it.
    again ??= running.then(() => {
      again = null;
      return changed();
    });
    return again;
  };

  metrics.onRestart(
    () => void changed().catch((error: unknown) => log.error({ err: error }, 'rule reload failed')),
  );
  return { changed };
}
