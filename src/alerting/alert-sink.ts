/**
 * @module What happens to the alert transitions the evaluator decided (front thread): those that
 * arrive in one turn are stored by one storage operation (the FIRING ones as new incidents with
 * their rules' trigger counts, the RESOLVED ones closing their rules' open incidents, the digests
 * of held-back incidents), then published on /topic/alerts; each incident's FIRING and RESOLVED is
 * notified to the channels it fired with (the rule is not read again) unless a silence covered it
 * or the budget held it back (a DIGEST then tells of it), and the delivery results are written in
 * batches. The sink's writes go one at a
 * time, so the transitions of one rule are stored in the order they were decided (a resolution
 * never overtakes the insert of its incident); deliveries do not hold up the next transition. The
 * actor never waits for any of this, nor does any request: `accept` returns at once, and
 * `deliver` is bounded on its side (the DeliveryLimiter: a slot, a place in its capped queue, or
 * a `dropped` result at once). Only shutdown awaits, through drain.
 *
 * Which notifications go out is decided once, in the storage worker: the operation that stores
 * the transitions writes their notifications to the outbox in the same transaction and answers
 * them, and this sink delivers exactly those (a silence or the budget is never judged again here).
 * From evaluation to a delivery recorded, an alert crosses threads 3 times: the metrics actor
 * posts the transition to the front thread; the front thread asks a storage worker to record the
 * transitions (answered: what was stored and the notifications outboxed); after delivery it asks a
 * storage worker to record the results, batched (DeliveryRecorder), which also deletes their
 * outbox rows. `redeliver` sends what is left in the outbox (by a process that died, or a leader
 * that lost the lease). In a cluster every write carries the rule leader's fence: a write refused
 * because the lease moved on is logged and dropped, not retried.
 */
import type { StoragePool } from '../actors/storage-pool.ts';
import { randomUUID } from 'node:crypto';
import type { RecordedTransitions } from '../domain/rules/alerts/recorded-transitions.ts';
import type { TransitionWriter } from '../domain/cluster/leader-fence.ts';
import {
  ruleOfTransition,
  type AlertDeliveries,
  type AlertMessage,
  type AlertRecord,
  type AlertTransition,
  type AlertTransitionName,
  type DeliveryResult,
  type PendingMessage,
  type RulePending,
} from '../domain/rules/alerts/alert.ts';
import type { Notification } from '../domain/rules/alerts/notification.ts';
import {
  deliveryTarget,
  type PendingNotification,
} from '../domain/rules/alerts/pending-notification.ts';
import type { RuleNotification } from '../domain/rules/rule.ts';
import type { Logger } from '../log.ts';
import { createDeliveryRecorder } from './delivery-recorder.ts';
import type { NotificationCounts } from '../notify/notification-counts.ts';

export type Deliver = (
  notification: Notification,
  rule: RuleNotification,
) => Promise<readonly DeliveryResult[]>;

export interface AlertSinkDeps {
  readonly pool: StoragePool;
  readonly publish: (alertJson: string) => void;
  readonly deliver: Deliver;
  readonly log: Logger;
  /** Where delivery results are counted by channel and outcome (GET /metrics). Absent: nowhere. */
  readonly notificationCounts?: NotificationCounts;
  /**
   * Who writes (each write asks): this process, with the rule leader lease's epoch in a cluster,
   * or `not-leader` (a cluster instance without the lease: the write is dropped). Absent: a
   * single instance, a holder id of its own, no epoch.
   */
  readonly writer?: () => TransitionWriter | 'not-leader';
  /** Called when a write was refused because the lease moved on (evaluation pauses at once). */
  readonly onFenced?: () => void;
}

export interface AlertSink {
  /** A transition to store, publish and notify; a PENDING rule is published only. */
  accept(transition: AlertTransition | RulePending): void;
  /** Publishes an acknowledgement made over HTTP (the alert as stored after it). */
  acknowledged(alert: AlertRecord): void;
  /**
   * Sends the notifications stored and not delivered: alone, every one (at start: a process that
   * died left them); in a cluster, those earlier leaders left (on taking the lease over). Resolves
   * once they were handed to delivery and their results written.
   */
  redeliver(): Promise<void>;
  /**
   * Resolves when every transition accepted so far is stored, its deliveries finished and their
   * results written.
   */
  drain(): Promise<void>;
}

/** Delivery results are written together once this long passed since the first one held... */
const DELIVERY_FLUSH_MS = 50;
/** ...or once this many are held. */
const DELIVERY_FLUSH_MAX = 200;

/** Stored transitions published (and their deliveries started) per turn of the event loop. */
const HANDLED_PER_TURN = 50;
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The /topic/alerts message: the alert as stored and what just happened to it. */
export const alertMessage = (alert: AlertRecord, transition: AlertTransitionName): string =>
  JSON.stringify({ ...alert, transition } satisfies AlertMessage);

/** The /topic/alerts message of a rule gone PENDING (nothing stored: no incident yet). */
const pendingMessage = ({ kind: _kind, ...rest }: RulePending): string =>
  JSON.stringify({ ...rest, transition: 'PENDING' } satisfies PendingMessage);

/** Notifications claimed from the outbox at once: delivered, and their results written, first. */
const REDELIVER_PAGE = 100;

export function createAlertSink(deps: AlertSinkDeps): AlertSink {
  const alone: TransitionWriter = { holder: `alone:${randomUUID()}`, epoch: null };
  const writerNow = deps.writer ?? (() => alone);
  const inFlight = new Set<Promise<void>>();
  /** Accepted and not yet handed to storage: those of one turn go in one operation. */
  let accepted: AlertTransition[] = [];
  let scheduled = false;
  /**
   * The sink's last storage write. One at a time: batches of transitions are stored in the order
   * accepted, and two writes that touch many alerts never wait on each other's rows.
   */
  let lastWrite: Promise<unknown> = Promise.resolve();
  const serially = <T>(write: () => Promise<T>): Promise<T> => {
    const next = lastWrite.then(write);
    lastWrite = next.catch(() => undefined);
    return next;
  };

  const track = (done: Promise<void>): void => {
    const tracked = done
      .catch((error: unknown) => deps.log.error({ err: error }, 'alert handling failed'))
      .finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  };

  const writeDeliveries = async (results: readonly AlertDeliveries[]): Promise<void> => {
    try {
      const saved = await deps.pool.run('recordDeliveries', { results });
      if (saved.ok) return;
      deps.log.error(
        { notifications: results.map((r) => `${r.transition} ${r.id}`), reason: saved.message },
        'could not store delivery results',
      );
    } catch (error) {
      deps.log.error({ err: error }, 'could not store delivery results');
    }
  };
  const recorder = createDeliveryRecorder({
    write: (results) => serially(() => writeDeliveries(results)),
    maxWaitMs: DELIVERY_FLUSH_MS,
    maxResults: DELIVERY_FLUSH_MAX,
    counts: deps.notificationCounts,
  });

  const deliver = async ({ notification, notify }: PendingNotification): Promise<void> => {
    const deliveries = await deps.deliver(notification, notify);
    recorder.add({ ...deliveryTarget(notification), deliveries });
  };

  /** Starts deliveries, a slice per turn: requests get the thread in between. */
  const deliverAll = async (pending: readonly PendingNotification[]): Promise<void> => {
    for (const [i, one] of pending.entries()) {
      if (i > 0 && i % HANDLED_PER_TURN === 0) await nextTurn();
      track(deliver(one));
    }
  };

  /**
   * Publishes what was stored, in order, and starts the deliveries of the notifications the same
   * operation wrote to the outbox (decided there: none is added or dropped here), a slice per
   * turn: requests get the thread in between, however many rules fired at once.
   */
  const stored = async ({ stored: records, outboxed }: RecordedTransitions): Promise<void> => {
    for (const [i, record] of records.entries()) {
      if (i > 0 && i % HANDLED_PER_TURN === 0) await nextTurn();
      switch (record.kind) {
        case 'fired':
          deps.publish(alertMessage(record.alert, 'FIRING'));
          break;
        case 'resolved':
          for (const { alert } of record.alerts) deps.publish(alertMessage(alert, 'RESOLVED'));
          break;
        case 'digest': {
          const { digest } = record;
          // Null: a digest decided again (after a restart) found its incidents carried already.
          if (digest === null) break;
          deps.log.info(
            { ruleId: digest.ruleId, digestId: digest.id, heldBack: digest.heldBack },
            'incidents held back by maxAlertsPerHour: digest',
          );
        }
      }
    }
    await deliverAll(outboxed);
  };

  const storeAccepted = async (): Promise<void> => {
    scheduled = false;
    const batch = accepted;
    accepted = [];
    if (batch.length === 0) return;
    const writer = writerNow();
    if (writer === 'not-leader') {
      deps.log.warn(
        { ruleIds: batch.map(ruleOfTransition) },
        'alert transitions dropped: this instance does not hold the rule leader lease',
      );
      return;
    }
    const result = await deps.pool.run('recordTransitions', { transitions: batch, writer });
    if (!result.ok) {
      if (result.code === 'FENCED') {
        // Not retried: the leader that holds the lease now decides these rules from what is stored.
        deps.log.warn(
          { ruleIds: batch.map(ruleOfTransition), epoch: writer.epoch, reason: result.message },
          'alert transitions refused: the rule leader lease moved on (not stored, not notified)',
        );
        deps.onFenced?.();
        return;
      }
      deps.log.error(
        { ruleIds: batch.map(ruleOfTransition), reason: result.message },
        'could not store alert transitions',
      );
      return;
    }
    await stored(result.value);
  };

  /** One page of the outbox: null when it cannot be read (logged) or the lease moved on. */
  const claimPage = async (): Promise<readonly PendingNotification[] | null> => {
    const writer = writerNow();
    if (writer === 'not-leader') return null;
    const page = await deps.pool.run('claimOutbox', { writer, limit: REDELIVER_PAGE });
    if (page.ok) return page.value;
    deps.log.warn({ reason: page.message }, 'could not claim the notification outbox');
    return null;
  };

  /** Page by page (a claimed row is this process's, so never claimed twice): memory stays bounded. */
  const redeliver = async (): Promise<void> => {
    for (;;) {
      const page = await claimPage();
      if (page === null || page.length === 0) return;
      deps.log.info(
        { notifications: page.map(({ notification }) => notification.transitionId) },
        'sending notifications stored but not delivered',
      );
      await Promise.all(page.map(deliver));
      await recorder.flush();
      if (page.length < REDELIVER_PAGE) return;
    }
  };
  const store = (): void => track(serially(storeAccepted));

  return {
    accept(transition) {
      if (transition.kind === 'pending') {
        deps.publish(pendingMessage(transition));
        return;
      }
      accepted.push(transition);
      if (scheduled) return;
      scheduled = true;
      // The actor posts an evaluation's transitions in one message, accepted in one loop; other
      // messages handled in this poll phase join them too: setImmediate runs after it.
      setImmediate(store);
    },
    acknowledged(alert) {
      deps.publish(alertMessage(alert, 'ACKNOWLEDGED'));
    },
    redeliver() {
      const done = redeliver();
      track(done);
      return done.catch(() => undefined);
    },
    async drain() {
      for (;;) {
        if (accepted.length > 0) store();
        await Promise.all(inFlight);
        await recorder.flush();
        if (accepted.length === 0 && inFlight.size === 0 && recorder.held() === 0) return;
      }
    },
  };
}
