/**
 * @module The rule leader lease from this instance's side (front thread, cluster mode;
 * docs/cluster-leader.md): every renewMs it takes or renews the lease through the storage pool;
 * it leads from the answer that gave it an epoch until a local, monotonic deadline (the time the
 * renewal was sent, plus the lease's length, minus one renewal period: the database's lease is
 * still valid then whatever the clocks say) passes without a newer answer, another holder
 * answers, or one of its writes was refused. It never waits on a renewal to stop leading: the
 * deadline is a timer of its own.
 */
import type { StoragePool } from '../actors/storage-pool.ts';
import { RULES_LEASE, type LeaderFence } from '../domain/cluster/leader-fence.ts';
import type { Logger } from '../log.ts';
import { REAL_TIMERS, type Timers } from '../timers.ts';

export type LeaseTimers = Pick<Timers, 'now' | 'setTimeout' | 'clearTimeout'>;

export interface LeaderLeaseOptions {
  readonly pool: Pick<StoragePool, 'run'>;
  /** Unique per process start. */
  readonly holder: string;
  readonly ttlMs: number;
  readonly renewMs: number;
  readonly log: Logger;
  /** Absent: the real ones. Tests move the clock and fire the timers themselves. */
  readonly timers?: LeaseTimers;
  /** This instance holds the lease now, at `epoch`. */
  readonly onGain: (epoch: number) => void;
  /** It no longer does (why, in words). */
  readonly onLose: (reason: string) => void;
}

export interface LeaderLease {
  /** The fence to write with while leading; null otherwise. */
  fence(): LeaderFence | null;
  /** A fenced write was refused: the lease moved on, stop leading now. */
  fenced(): void;
  /** Renews now (and on schedule after); resolves once answered. */
  renew(): Promise<void>;
  /** Stops renewing and, if held, ends the lease at once so that another instance takes it. */
  stop(): Promise<void>;
}

export function startLeaderLease(options: LeaderLeaseOptions): LeaderLease {
  const { pool, holder, ttlMs, renewMs, log } = options;
  const timers = options.timers ?? REAL_TIMERS;
  let epoch: number | null = null;
  let deadlineTimer: unknown = null;
  let renewTimer: unknown = null;
  let inFlight: Promise<void> | null = null;
  let stopped = false;

  /** `expected`: a clean shutdown, said at info rather than as a warning. */
  const lose = (reason: string, expected = false): void => {
    if (deadlineTimer !== null) timers.clearTimeout(deadlineTimer);
    deadlineTimer = null;
    if (epoch === null) return;
    log[expected ? 'info' : 'warn'](
      { epoch, holder, reason },
      'this instance is no longer the rule leader',
    );
    epoch = null;
    options.onLose(reason);
  };

  const armDeadline = (deadline: number): void => {
    if (deadlineTimer !== null) timers.clearTimeout(deadlineTimer);
    deadlineTimer = timers.setTimeout(
      () => {
        deadlineTimer = null;
        lose('the lease was not renewed in time');
      },
      deadline - timers.now(),
      undefined,
    );
  };

  const answered = (sentAt: number, taken: number | null): void => {
    if (stopped) return;
    if (taken === null) {
      lose('another instance holds the lease');
      return;
    }
    const deadline = sentAt + ttlMs - renewMs;
    if (timers.now() >= deadline) {
      // Too late to count on: the lease may expire any moment. The next renewal decides.
      lose('the lease was renewed too late');
      return;
    }
    if (epoch !== null && epoch !== taken) lose(`the epoch moved from ${epoch} to ${taken}`);
    armDeadline(deadline);
    if (epoch !== null) return;
    epoch = taken;
    log.info({ epoch, holder }, 'this instance is the rule leader');
    options.onGain(taken);
  };

  const renewOnce = async (): Promise<void> => {
    const sentAt = timers.now();
    const result = await pool.run('takeLease', { name: RULES_LEASE, holder, ttlMs });
    if (result.ok) answered(sentAt, result.value);
    // A failed renewal changes nothing by itself: the deadline stops leading if none succeeds.
    else log.warn({ reason: result.message }, 'could not renew the rule leader lease');
  };

  const schedule = (): void => {
    if (stopped) return;
    renewTimer = timers.setTimeout(
      () => {
        renewTimer = null;
        void renew();
        schedule();
      },
      renewMs,
      undefined,
    );
  };

  // One renewal at a time: a slow database is not asked again before it answered.
  const renew = (): Promise<void> =>
    (inFlight ??= renewOnce()
      .catch((error: unknown) => log.error({ err: error }, 'rule leader lease renewal failed'))
      .finally(() => {
        inFlight = null;
      }));

  void renew();
  schedule();
  return {
    fence: () => (epoch === null ? null : { holder, epoch }),
    fenced: () => lose('a write was refused: the lease moved on'),
    renew,
    async stop() {
      stopped = true;
      if (renewTimer !== null) timers.clearTimeout(renewTimer);
      renewTimer = null;
      await inFlight;
      const held = epoch !== null;
      lose('shutting down', true);
      if (!held) return;
      const released = await pool.run('releaseLease', { name: RULES_LEASE, holder });
      if (!released.ok) log.warn({ reason: released.message }, 'could not release the lease');
    },
  };
}
