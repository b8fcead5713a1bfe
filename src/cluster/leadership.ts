/**
 * @module Cluster mode's rule leadership, started by the composition root (front thread;
 * docs/cluster-leader.md): the leader lease, what taking it and losing it does, and the poll that
 * brings rule changes made through other instances. Null alone (NATS_URL unset): no lease, the
 * rules are always evaluated here, as before clusters.
 *
 * Taking the lease: every rule is reloaded with its lifecycle and throttling from the stored
 * alerts (what the previous leader stored), evaluation resumes in the same actor command, and the
 * notifications earlier leaders stored and did not deliver are sent. Losing it: evaluation pauses
 * at once (one actor command); a transition decided just before is refused by the fence.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { MetricsActor } from '../actors/metrics-actor-client.ts';
import type { StoragePool } from '../actors/storage-pool.ts';
import type { RuleSync } from '../alerting/rule-sync.ts';
import type { Config } from '../config.ts';
import type { TransitionWriter } from '../domain/cluster/leader-fence.ts';
import type { Logger } from '../log.ts';
import { startLeaderLease, type LeaseTimers } from './leader-lease.ts';
import { watchRuleChanges } from './rule-change-watch.ts';

export interface LeadershipDeps {
  readonly pool: Pick<StoragePool, 'run'>;
  readonly metrics: Pick<MetricsActor, 'setEvaluating'>;
  readonly ruleSync: Pick<RuleSync, 'changed' | 'lead'>;
  /** Sends what earlier leaders stored and did not deliver (the alert sink's redeliver). */
  readonly redeliver: () => Promise<void>;
  readonly log: Logger;
  /** Names this process in the lease (default: host and pid); a random suffix is always added. */
  readonly instanceId?: string;
  readonly timers?: LeaseTimers;
}

export interface Leadership {
  /** The writer for alert transitions: this process at its epoch, or `not-leader`. */
  writer(): TransitionWriter | 'not-leader';
  /** A write was refused by the fence: pause now. */
  fenced(): void;
  /** This process's holder id, and the epoch it leads at (null: it does not lead now). */
  status(): { readonly holder: string; readonly epoch: number | null };
  /** Stops the poll and the lease (released if held, so another instance takes it at once). */
  stop(): Promise<void>;
}

/** A holder id unique per process start: a restarted process never continues an old epoch. */
export const holderId = (instanceId = `${hostname()}:${process.pid}`): string =>
  `${instanceId}:${randomUUID().slice(0, 8)}`;

export function startLeadership(
  config: Pick<Config, 'NATS_URL' | 'LEASE_TTL_MS' | 'LEASE_RENEW_MS'>,
  deps: LeadershipDeps,
): Leadership | null {
  if (config.NATS_URL === undefined) return null;
  const { log } = deps;
  /** Moves on at every gain and loss: a reload started for an older gain does not resume. */
  let term = 0;
  const holder = holderId(deps.instanceId);
  const lease = startLeaderLease({
    pool: deps.pool,
    holder,
    ttlMs: config.LEASE_TTL_MS,
    renewMs: config.LEASE_RENEW_MS,
    log,
    ...(deps.timers === undefined ? {} : { timers: deps.timers }),
    onGain: (epoch) => {
      const mine = ++term;
      const current = (): boolean => term === mine && lease.fence()?.epoch === epoch;
      void deps.ruleSync
        .lead(current)
        .then(() => (current() ? deps.redeliver() : undefined))
        .catch((error: unknown) => log.error({ err: error }, 'taking over as rule leader failed'));
    },
    onLose: () => {
      term++;
      deps.metrics.setEvaluating(false);
    },
  });
  const watch = watchRuleChanges(deps.pool, deps.ruleSync, log);
  return {
    writer: () => lease.fence() ?? 'not-leader',
    fenced: () => lease.fenced(),
    status: () => ({ holder, epoch: lease.fence()?.epoch ?? null }),
    async stop() {
      watch.stop();
      await lease.stop();
    },
  };
}
