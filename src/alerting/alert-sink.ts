/**
 * @module What happens to an alert transition the evaluator decided (front thread): a FIRING one
 * is stored as a new incident with its rule's trigger count, published on /topic/alerts, handed
 * to the rule's notification channels, and the delivery results stored on it; a RESOLVED one
 * closes the rule's open incident and is published. The transitions of one rule are stored in
 * the order they were decided (a resolution never overtakes the insert of its incident); their
 * deliveries do not hold up the next transition. The actor never waits for any of this, nor does
 * any request: `accept` returns at once, and `deliver` is bounded on its side (the
 * DeliveryLimiter: a slot, a place in its capped queue, or a `dropped` result at once). Only
 * shutdown awaits, through drain.
 */
import type { StoragePool } from '../actors/storage-pool.ts';
import type {
  AlertMessage,
  AlertRecord,
  AlertTransition,
  AlertTransitionName,
  DeliveryResult,
  FiredAlert,
} from '../domain/rules/alert.ts';
import type { RuleFields } from '../domain/rules/rule.ts';
import type { Logger } from '../log.ts';

export type Deliver = (
  alert: AlertRecord,
  rule: Pick<RuleFields, 'notificationChannels' | 'notificationConfig'>,
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
  /** Resolves when every transition accepted so far is stored and its deliveries finished. */
  drain(): Promise<void>;
}

/** The /topic/alerts message: the alert as stored and what just happened to it. */
export const alertMessage = (alert: AlertRecord, transition: AlertTransitionName): string =>
  JSON.stringify({ ...alert, transition } satisfies AlertMessage);

export function createAlertSink(deps: AlertSinkDeps): AlertSink {
  const inFlight = new Set<Promise<void>>();
  /** Per rule, the storing of its latest transition: the next one waits for it. */
  const stored = new Map<number, Promise<unknown>>();

  const deliver = async (alert: AlertRecord): Promise<void> => {
    const rule = await deps.pool.run('getRule', { id: alert.ruleId });
    if (!rule.ok || rule.value.notificationChannels.length === 0) return;
    const deliveries = await deps.deliver(alert, rule.value);
    const saved = await deps.pool.run('recordDeliveries', { id: alert.id, deliveries });
    if (!saved.ok)
      deps.log.error(
        { alertId: alert.id, reason: saved.message },
        'could not store delivery results',
      );
  };

  /** Stores a fired incident; answers it (null when it could not be stored). */
  const fire = async (fired: FiredAlert): Promise<AlertRecord | null> => {
    const result = await deps.pool.run('recordAlert', { alert: fired });
    if (!result.ok) {
      deps.log.error({ ruleId: fired.ruleId, reason: result.message }, 'could not store an alert');
      return null;
    }
    deps.publish(alertMessage(result.value, 'FIRING'));
    return result.value;
  };

  const resolve = async (
    transition: Extract<AlertTransition, { kind: 'resolved' }>,
  ): Promise<null> => {
    const { resolution } = transition;
    const result = await deps.pool.run('resolveAlert', { resolution });
    if (!result.ok) {
      deps.log.error(
        { ruleId: resolution.ruleId, reason: result.message },
        'could not resolve an alert',
      );
      return null;
    }
    for (const alert of result.value) deps.publish(alertMessage(alert, 'RESOLVED'));
    return null;
  };

  const track = (done: Promise<void>): void => {
    const tracked = done
      .catch((error: unknown) => deps.log.error({ err: error }, 'alert handling failed'))
      .finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  };

  return {
    accept(transition) {
      const ruleId =
        transition.kind === 'fired' ? transition.alert.ruleId : transition.resolution.ruleId;
      const before = stored.get(ruleId) ?? Promise.resolve();
      const step = before.then((): Promise<AlertRecord | null> =>
        transition.kind === 'fired' ? fire(transition.alert) : resolve(transition),
      );
      const settled = step.catch(() => undefined);
      stored.set(ruleId, settled);
      void settled.then(() => {
        if (stored.get(ruleId) === settled) stored.delete(ruleId);
      });
      track(
        step.then(async (alert) => {
          if (alert !== null) await deliver(alert);
        }),
      );
    },
    acknowledged(alert) {
      deps.publish(alertMessage(alert, 'ACKNOWLEDGED'));
    },
    async drain() {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
  };
}
