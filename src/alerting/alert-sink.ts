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
 */
import type { StoragePool } from '../actors/storage-pool.ts';
import {
  ruleOfTransition,
  type AlertDeliveries,
  type AlertMessage,
  type AlertRecord,
  type AlertTransition,
  type AlertTransitionName,
  type DeliveryResult,
  type StoredAlert,
  type StoredTransition,
} from '../domain/rules/alert.ts';
import {
  digestNotification,
  incidentNotification,
  type Notification,
} from '../domain/rules/notification.ts';
import type { RuleNotification } from '../domain/rules/rule.ts';
import type { Logger } from '../log.ts';
import { createDeliveryRecorder } from './delivery-recorder.ts';
import type { NotificationCounts } from '../instrumentation/notification-counts.ts';

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
}

export interface AlertSink {
  accept(transition: AlertTransition): void;
  /** Publishes an acknowledgement made over HTTP (the alert as stored after it). */
  acknowledged(alert: AlertRecord): void;
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

/** An incident a silence covered, or the budget held back, is not notified on its own. */
const notifiable = ({ alert, notify }: StoredAlert): boolean =>
  notify.notificationChannels.length > 0 && !alert.silenced && !alert.heldByBudget;

export function createAlertSink(deps: AlertSinkDeps): AlertSink {
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

  const deliver = async (
    notification: Notification,
    rule: RuleNotification,
    id: number,
  ): Promise<void> => {
    const deliveries = await deps.deliver(notification, rule);
    recorder.add({ transition: notification.transition, id, deliveries });
  };

  /** Publishes an incident's transition and notifies it where it should be. */
  const incident = (stored: StoredAlert, transition: 'FIRING' | 'RESOLVED'): void => {
    deps.publish(alertMessage(stored.alert, transition));
    if (notifiable(stored))
      track(
        deliver(incidentNotification(stored.alert, transition), stored.notify, stored.alert.id),
      );
  };

  /**
   * Publishes what was stored, in order, and starts its deliveries, a slice per turn: requests get
   * the thread in between, however many rules fired at once.
   */
  const stored = async (records: readonly StoredTransition[]): Promise<void> => {
    for (const [i, record] of records.entries()) {
      if (i > 0 && i % HANDLED_PER_TURN === 0) await nextTurn();
      switch (record.kind) {
        case 'fired':
          incident(record, 'FIRING');
          break;
        case 'resolved':
          for (const alert of record.alerts) incident(alert, 'RESOLVED');
          break;
        case 'digest': {
          const { digest, notify } = record;
          // Null: a digest decided again (after a restart) found its incidents carried already.
          if (digest === null) break;
          deps.log.info(
            { ruleId: digest.ruleId, digestId: digest.id, heldBack: digest.heldBack },
            'incidents held back by maxAlertsPerHour: digest',
          );
          if (notify.notificationChannels.length > 0)
            track(deliver(digestNotification(digest), notify, digest.id));
        }
      }
    }
  };

  const storeAccepted = async (): Promise<void> => {
    scheduled = false;
    const batch = accepted;
    accepted = [];
    if (batch.length === 0) return;
    const result = await deps.pool.run('recordTransitions', { transitions: batch });
    if (!result.ok) {
      deps.log.error(
        { ruleIds: batch.map(ruleOfTransition), reason: result.message },
        'could not store alert transitions',
      );
      return;
    }
    await stored(result.value);
  };
  const store = (): void => track(serially(storeAccepted));

  return {
    accept(transition) {
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
