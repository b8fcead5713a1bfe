/**
 * @module Rule changes made through any instance reach this one (front thread, cluster mode): the
 * database's rule change counter (a trigger moves it on with every create, edit, status change or
 * delete) is polled (counter-watch.ts, every POLL_MS); when it moved, every rule is reloaded
 * (rule-sync.ts, which keeps what each known rule's evaluation holds). A change shows within
 * POLL_MS plus one reload, well inside the 2 s the issue allows. Changes made through this
 * instance were applied at once already; the reload they cause here is redundant and harmless.
 */
import type { StoragePool } from '../actors/storage-pool.ts';
import type { RuleSync } from '../alerting/rule-sync.ts';
import type { Logger } from '../log.ts';
import type { Timers } from '../timers.ts';
import { watchCounter, type CounterWatch } from './counter-watch.ts';

export function watchRuleChanges(
  pool: Pick<StoragePool, 'run'>,
  ruleSync: Pick<RuleSync, 'changed'>,
  log: Logger,
  timers?: Pick<Timers, 'setInterval' | 'clearInterval'>,
): CounterWatch {
  return watchCounter(
    {
      name: 'rule change',
      read: () => pool.run('ruleChanges', {}),
      // The first read reloads too: a change may have landed between start-up's load and it.
      moved: () => ruleSync.changed(),
    },
    log,
    timers,
  );
}
