/**
 * @module Which stored transitions are notified, and what each notification says: decided once from
 * what was stored, by the storage worker that writes them to the notification outbox in the
 * transition's own transaction and answers them to the front thread, which delivers exactly those
 * (src/domain/alerts/recorded-transitions.ts). Pure.
 */
import type { AlertDeliveries, StoredAlert, StoredTransition } from './alert.ts';
import {
  digestNotification,
  digestTransitionId,
  incidentNotification,
  incidentTransitionId,
  type Notification,
} from './notification.ts';
import type { RuleNotification } from '../rule.ts';

/** A notification to send, and the channels it goes to (those its incident fired with). */
export interface PendingNotification {
  readonly notification: Notification;
  readonly notify: RuleNotification;
}

/** An incident a silence covered, or the budget held back, is not notified on its own. */
const notifiable = ({ alert, notify }: StoredAlert): boolean =>
  notify.notificationChannels.length > 0 && !alert.silenced && !alert.heldByBudget;

/** The notifications of `stored`, in its order (a resolution's after its firing's). */
export function pendingNotifications(stored: readonly StoredTransition[]): PendingNotification[] {
  const pending: PendingNotification[] = [];
  const incident = (alert: StoredAlert, transition: 'FIRING' | 'RESOLVED'): void => {
    if (notifiable(alert))
      pending.push({
        notification: incidentNotification(alert.alert, transition),
        notify: alert.notify,
      });
  };
  for (const record of stored) {
    switch (record.kind) {
      case 'fired':
        incident(record, 'FIRING');
        break;
      case 'resolved':
        for (const alert of record.alerts) incident(alert, 'RESOLVED');
        break;
      case 'digest':
        // Null: a digest decided again (after a restart) found its incidents carried already.
        if (record.digest !== null && record.notify.notificationChannels.length > 0)
          pending.push({ notification: digestNotification(record.digest), notify: record.notify });
    }
  }
  return pending;
}

/** The stored alert or digest whose delivery results a notification's are. */
export const deliveryTarget = (notification: Notification): Omit<AlertDeliveries, 'deliveries'> =>
  notification.transition === 'DIGEST'
    ? { transition: 'DIGEST', id: notification.digestId }
    : { transition: notification.transition, id: notification.alertId };

/** The transitionId of the notification whose delivery results these are. */
export const transitionIdOf = ({ transition, id }: Omit<AlertDeliveries, 'deliveries'>): string =>
  transition === 'DIGEST' ? digestTransitionId(id) : incidentTransitionId(id, transition);
