/**
 * @module What happens to an alert the evaluator fired (front thread): stored with its rule's
 * trigger count, published on /topic/alerts, handed to the rule's notification channels, and the
 * delivery results stored on it. The actor never waits for any of this, nor does any request:
 * `accept` returns at once, and `deliver` is bounded on its side (the DeliveryLimiter: a slot, a
 * place in its capped queue, or a `dropped` result at once). Only shutdown awaits, through drain.
 */
import type { StoragePool } from '../actors/storage-pool.ts';
import type { AlertRecord, DeliveryResult, FiredAlert } from '../domain/rules/alert.ts';
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
  accept(alert: FiredAlert): void;
  /** Resolves when every alert accepted so far is stored and its deliveries finished. */
  drain(): Promise<void>;
}

export function createAlertSink(deps: AlertSinkDeps): AlertSink {
  const inFlight = new Set<Promise<void>>();

  const handle = async (fired: FiredAlert): Promise<void> => {
    const stored = await deps.pool.run('recordAlert', { alert: fired });
    if (!stored.ok) {
      deps.log.error({ ruleId: fired.ruleId, reason: stored.message }, 'could not store an alert');
      return;
    }
    const alert = stored.value;
    deps.publish(JSON.stringify(alert));
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

  return {
    accept(fired) {
      const done = handle(fired)
        .catch((error: unknown) =>
          deps.log.error({ err: error, ruleId: fired.ruleId }, 'alert handling failed'),
        )
        .finally(() => inFlight.delete(done));
      inFlight.add(done);
    },
    async drain() {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
  };
}
