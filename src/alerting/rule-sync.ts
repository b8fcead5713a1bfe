/**
 * @module Keeps the metrics actor's set of ACTIVE rules equal to the table (front thread): loaded
 * at start, after every rule change and after an actor restart. Reloads never overlap; changes
 * that arrive during one are folded into a single follow-up reload; a failed reload is retried
 * every second until one succeeds, so the actor never keeps a stale set for long.
 */
import type { MetricsActor } from '../actors/metrics-actor-client.ts';
import type { StoragePool } from '../actors/storage-pool.ts';
import type { Logger } from '../log.ts';

const RETRY_MS = 1000;

export interface RuleSync {
  /** Schedules a reload; resolves when a reload that started after this call has finished. */
  changed(): Promise<void>;
  /** Cancels a pending retry (shutdown). */
  stop(): void;
}

export function createRuleSync(pool: StoragePool, metrics: MetricsActor, log: Logger): RuleSync {
  let running: Promise<void> | null = null;
  let again: Promise<void> | null = null;
  let retry: NodeJS.Timeout | null = null;
  let stopped = false;

  const load = async (): Promise<void> => {
    const result = await pool.run('activeRules', { now: Date.now() });
    if (!result.ok) throw new Error(`could not load the active rules: ${result.message}`);
    await metrics.setRules(result.value);
  };

  const changed = (): Promise<void> => {
    if (running === null) {
      if (retry !== null) clearTimeout(retry);
      retry = null;
      running = load()
        .catch((error: unknown) => {
          log.error({ err: error }, `rule reload failed; retrying in ${RETRY_MS} ms`);
          if (!stopped) retry = setTimeout(() => void changed(), RETRY_MS).unref();
        })
        .finally(() => {
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

  metrics.onRestart(() => void changed());
  return {
    changed,
    stop() {
      stopped = true;
      if (retry !== null) clearTimeout(retry);
    },
  };
}
