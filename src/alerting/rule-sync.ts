/**
 * @module Keeps the metrics actor's set of ACTIVE rules equal to the table (front thread): the
 * whole set at start, after an actor restart and after a failed update (with the rules not ACTIVE
 * that still have an open incident, for the actor to resolve); after a change to a rule,
 * only that rule, so that creating n rules costs O(n) reads instead of O(n²). Updates never
 * overlap: changes that arrive during one are folded into a single follow-up; a failed update is
 * retried as a whole reload every second until one succeeds, so the actor never keeps a stale set
 * for long. In a cluster, `lead` is how the instance that took the leader lease starts evaluating:
 * a whole reload whose lifecycle and throttling come from the stored alerts (what the previous
 * leader stored), then evaluation resumes, if the lease is still held by then.
 */
import type { MetricsActor } from '../actors/metrics-actor-client.ts';
import type { StoragePool } from '../actors/storage-pool.ts';
import type { Logger } from '../log.ts';

const RETRY_MS = 1000;

export interface RuleSync {
  /**
   * Schedules an update of rule `id` (of every rule when absent); resolves when an update that
   * started after this call has finished.
   */
  changed(id?: number): Promise<void>;
  /**
   * Reloads every rule fresh (lifecycles and throttling from the stored alerts) and then resumes
   * evaluation, unless `stillLeading` says the lease was lost meanwhile; a failed reload is
   * retried as any other. Resolves as changed() does.
   */
  lead(stillLeading: () => boolean): Promise<void>;
  /** Cancels a pending retry (shutdown). */
  stop(): void;
}

export function createRuleSync(pool: StoragePool, metrics: MetricsActor, log: Logger): RuleSync {
  let running: Promise<void> | null = null;
  let again: Promise<void> | null = null;
  let retry: NodeJS.Timeout | null = null;
  let stopped = false;
  /** What the next update covers: every rule, or the rules of these ids. */
  let everything = false;
  let ids = new Set<number>();
  /** A lead() not yet done: the next whole reload is fresh and then resumes evaluation. */
  let leading: (() => boolean) | null = null;

  const update = async (
    all: boolean,
    some: readonly number[],
    lead: (() => boolean) | null,
  ): Promise<void> => {
    const now = Date.now();
    const result = await pool.run('activeRules', all ? { now } : { now, ids: some });
    if (!result.ok) throw new Error(`could not load the active rules: ${result.message}`);
    // The ids that came back are ACTIVE; the others were paused, archived or deleted.
    if (!all) {
      await metrics.putRules(some, result.value);
      return;
    }
    // Read after the rules: a rule enabled in between is then in neither, never in both.
    const orphans = await pool.run('inactiveRulesFiring', {});
    if (!orphans.ok) throw new Error(`could not load the open incidents: ${orphans.message}`);
    if (lead === null) {
      await metrics.setRules(result.value, orphans.value);
      return;
    }
    // Evaluation resumes with the fresh rules, in one command: no tick runs on stale state. Not
    // when the lease was lost during the reads (they are then loaded as any other time).
    await metrics.setRules(result.value, orphans.value, lead());
  };

  const start = (): Promise<void> => {
    if (retry !== null) clearTimeout(retry);
    retry = null;
    const all = everything;
    const some = [...ids];
    const lead = all ? leading : null;
    everything = false;
    ids = new Set();
    if (lead !== null) leading = null;
    running = update(all, some, lead)
      .catch((error: unknown) => {
        log.error({ err: error }, `rule update failed; reloading every rule in ${RETRY_MS} ms`);
        // The actor may or may not hold the change: only a whole reload is sure to fix it.
        everything = true;
        leading ??= lead;
        if (!stopped) retry = setTimeout(() => void changed(), RETRY_MS).unref();
      })
      .finally(() => {
        running = null;
      });
    return running;
  };

  const changed = (id?: number): Promise<void> => {
    // Shutting down: the actor is stopping, nothing is loaded any more.
    if (stopped) return Promise.resolve();
    if (id === undefined) everything = true;
    else ids.add(id);
    if (running === null) return start();
    // An update is in flight and may have read the table before this change: one more after it.
    again ??= running.then(() => {
      again = null;
      return start();
    });
    return again;
  };

  metrics.onRestart(() => void changed());
  return {
    changed,
    lead(stillLeading) {
      leading = stillLeading;
      return changed();
    },
    stop() {
      stopped = true;
      if (retry !== null) clearTimeout(retry);
    },
  };
}
