/**
 * @module What recording a turn's alert transitions answers (storage worker -> front thread): the
 * transitions as stored, and the notifications that the same transaction wrote to the outbox.
 * Which incidents are notified (a silence covering one, the budget holding it back) is decided
 * once, in that transaction: the front thread delivers exactly `outboxed`, and decides nothing.
 */
import type { StoredTransition } from './alert.ts';
import type { PendingNotification } from './pending-notification.ts';

export interface RecordedTransitions {
  /** What was stored for each transition, in the order given. */
  readonly stored: readonly StoredTransition[];
  /**
   * The notifications written to the outbox, in the order of `stored` (a resolution's after its
   * firing's). Each one's outbox row is keyed by its `notification.transitionId`.
   */
  readonly outboxed: readonly PendingNotification[];
}
