/**
 * @module Rule changes made through any instance reach this one (front thread, cluster mode): the
 * database's rule change counter (a trigger moves it on with every create, edit, status change or
 * delete) is read every POLL_MS; when it moved, every rule is reloaded (rule-sync.ts, which keeps
 * what each known rule's evaluation holds). One indexed single-row read per poll; a change shows
 * within POLL_MS plus one reload, well inside the 2 s the issue allows. Changes made through this
 * instance were applied at once already; the reload they cause here is redundant and harmless.
 */
import type { StoragePool } from '../actors/storage-pool.ts';
import type { RuleSync } from '../alerting/rule-sync.ts';
import type { Logger } from '../log.ts';
import { REAL_TIMERS, type Timers } from '../timers.ts';

export const POLL_MS = 500;

export interface RuleChangeWatch {
  /** Reads the counter now (tests); resolves once any reload it started has finished. */
  poll(): Promise<void>;
  stop(): void;
}

export function watchRuleChanges(
  pool: Pick<StoragePool, 'run'>,
  ruleSync: Pick<RuleSync, 'changed'>,
  log: Logger,
  timers: Pick<Timers, 'setInterval' | 'clearInterval'> = REAL_TIMERS,
): RuleChangeWatch {
  /** The counter as last read; null before the first read. */
  let seen: number | null = null;
  let polling: Promise<void> | null = null;

  const pollOnce = async (): Promise<void> => {
    const result = await pool.run('ruleChanges', {});
    if (!result.ok) {
      log.warn({ reason: result.message }, 'could not read the rule change counter');
      return;
    }
    const moved = seen !== result.value;
    seen = result.value;
    // The first read reloads too: a change may have landed between start-up's load and it.
    if (moved) await ruleSync.changed();
  };
  const poll = (): Promise<void> =>
    (polling ??= pollOnce()
      .catch((error: unknown) => log.error({ err: error }, 'rule change poll failed'))
      .finally(() => {
        polling = null;
      }));

  const interval = timers.setInterval(() => void poll(), POLL_MS);
  (interval as { unref?: () => void }).unref?.();
  return { poll, stop: () => timers.clearInterval(interval) };
}
