/**
 * @module What happens to the alert transitions the evaluator decided (front thread): those that
 * arrive in one turn are stored by one storage operation (the FIRING ones as new incidents with
 * their rules' trigger counts, the RESOLVED ones closing their rules' open incidents), then
 * published on /topic/alerts; a FIRING one is handed to the channels it carries (the rule is not
 * read again), and the delivery results are written in batches. The sink's writes go one at a
 * time, so the transitions of one rule are stored in the order they were decided (a resolution
 * never overtakes the insert of its incident); deliveries do not hold up the next transition. The
 * actor never waits for any of this, nor does any request: `accept` returns at once, and
 * `deliver` is bounded on its side (the DeliveryLimiter: a slot, a place in its capped queue, or
 * a `dropped` result at once). Only shutdown awaits, through drain.
 */
import type { StoragePool } from '../actors/storage-pool.ts';
import type {
  AlertDeliveries,
  AlertMessage,
  AlertRecord,
  AlertTransition,
  AlertTransitionName,
  DeliveryResult,
  StoredTransition,
} from '../domain/rules/alert.ts';
import type { RuleNotification } from '../domain/rules/rule.ts';
import type { Logger } from '../log.ts';
import { createDeliveryRecorder } from './delivery-recorder.ts';

export type Deliver = (
  alert: AlertRecord,
  rule: RuleNotification,
) => Promise<readonly DeliveryResult[]>;

export interface AlertSinkDeps {
  readonly pool: StoragePool;
  readonly publish: (alertJson: string) => void;
  readonly deliver: Deliver;
  readonly log: Logger;
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

const ruleIdOf = (transition: AlertTransition): number =>
  transition.kind === 'fired' ? transition.alert.ruleId : transition.resolution.ruleId;

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
        { alertIds: results.map((r) => r.alertId), reason: saved.message },
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
  });

  const deliver = async (alert: AlertRecord, rule: RuleNotification): Promise<void> => {
    const deliveries = await deps.deliver(alert, rule);
    recorder.add({ alertId: alert.id, deliveries });
  };

  /**
   * Publishes what was stored, in order, and starts the deliveries of the FIRING ones, a slice per
   * turn: requests get the thread in between, however many rules fired at once.
   */
  const stored = async (
    batch: readonly AlertTransition[],
    records: readonly StoredTransition[],
  ): Promise<void> => {
    for (const [i, record] of records.entries()) {
      if (i > 0 && i % HANDLED_PER_TURN === 0) await nextTurn();
      if (record.kind === 'resolved') {
        for (const alert of record.alerts) deps.publish(alertMessage(alert, 'RESOLVED'));
        continue;
      }
      deps.publish(alertMessage(record.alert, 'FIRING'));
      const transition = batch[i];
      if (transition?.kind === 'fired' && transition.alert.notificationChannels.length > 0)
        track(deliver(record.alert, transition.alert));
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
        { ruleIds: batch.map(ruleIdOf), reason: result.message },
        'could not store alert transitions',
      );
      return;
    }
    await stored(batch, result.value);
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
