/** @module The storage pool's alert operations: transitions, the outbox, deliveries, reads. */
import type { RecordedTransitions } from '../../domain/rules/alerts/recorded-transitions.ts';
import type { TransitionWriter } from '../../domain/cluster/leader-fence.ts';
import type {
  Acknowledgement,
  AlertDeliveries,
  AlertFilter,
  AlertRecord,
  AlertTransition,
} from '../../domain/rules/alerts/alert.ts';
import type { PendingNotification } from '../../domain/rules/alerts/pending-notification.ts';
import type { ActiveRule } from '../../domain/rules/rule.ts';
import type { DbFailure, Result } from './result.ts';

export interface AlertHandlers {
  /**
   * Stores the transitions in one transaction, each rule's in the order given, counting the fired
   * incidents on their rules and writing their notifications to the outbox (claimed by the
   * writer); answers what was stored for each, in the order given, and the notifications written
   * (the front thread delivers those, deciding nothing again). A writer with an epoch (cluster
   * mode): FENCED, nothing stored, when the lease no longer names its holder and epoch.
   * Absent: a writer that claims nothing (tools, tests).
   */
  recordTransitions(input: {
    readonly transitions: readonly AlertTransition[];
    readonly writer?: TransitionWriter;
  }): Promise<Result<RecordedTransitions, DbFailure | 'FENCED'>>;
  /**
   * Claims for the writer the notifications other processes stored and did not deliver: in a
   * cluster, those of earlier epochs (FENCED when its lease no longer holds); alone, those of any
   * other process. Oldest first.
   */
  claimOutbox(input: {
    readonly writer: TransitionWriter;
    readonly limit: number;
  }): Promise<Result<readonly PendingNotification[], DbFailure | 'FENCED'>>;
  /** Writes the delivery results of many alerts, one statement, and deletes their outbox rows. */
  recordDeliveries(input: {
    readonly results: readonly AlertDeliveries[];
  }): Promise<Result<true, DbFailure>>;
  getAlert(input: { readonly id: number }): Promise<Result<AlertRecord, DbFailure | 'NOT_FOUND'>>;
  /** The first acknowledgement stays: `changed` is false when the alert already had one. */
  acknowledgeAlert(input: {
    readonly id: number;
    readonly ack: Acknowledgement;
  }): Promise<
    Result<{ readonly alert: AlertRecord; readonly changed: boolean }, DbFailure | 'NOT_FOUND'>
  >;
  listAlerts(input: {
    readonly filter: AlertFilter;
    readonly page: number;
    readonly size: number;
  }): Promise<Result<{ readonly rows: readonly AlertRecord[]; readonly total: number }, DbFailure>>;
  /** Ids of the rules not ACTIVE (or deleted) that have an open incident. */
  inactiveRulesFiring(input: Record<string, never>): Promise<Result<readonly number[], DbFailure>>;
  /**
   * ACTIVE rules (all, or those of `ids`) with their last hour of alert times and open incident,
   * for the evaluator.
   */
  activeRules(input: {
    readonly now: number;
    readonly ids?: readonly number[];
  }): Promise<Result<readonly ActiveRule[], DbFailure>>;
}
