/**
 * @module The alert record and its variants, declared once: the alert as stored and as the API,
 * /topic/alerts and the webhook return it; the payload the notification channels read; the alert
 * the evaluator fires; and the outcome of delivering it. Plain data only (they cross threads).
 */
import type { LogicalOperator, OperatorName, RuleSeverity } from '../rule-types.ts';
import type { RuleNotification } from '../rule.ts';
import type { ExplainedBand } from '../kinds/anomaly/anomaly-explanation.ts';

/** One comparison of a rule's condition as evaluated at a transition. */
export interface ExplainedCondition {
  /** As written in ruleConfig, e.g. `eventsByType[checkout]`. */
  readonly metric: string;
  /** The key of an indexed metric (`checkout`), null for the others. */
  readonly key: string | null;
  /** `percentChange` for RATE_CHANGE (the value is the percent change between two windows). */
  readonly measure: 'value' | 'percentChange';
  readonly windowMinutes: number;
  readonly operator: OperatorName;
  readonly threshold: number;
  /** The leaf's recoveryThreshold, null when it has none. */
  readonly recoveryThreshold: number | null;
  /** What the value was compared with: the threshold, or recoveryThreshold while FIRING. */
  readonly comparedWith: number;
  /** Null when there was nothing to compare (RATE_CHANGE without a baseline). */
  readonly value: number | null;
  readonly result: boolean;
}

/** An AND / OR / NOT of the condition as evaluated at a transition. */
export interface ExplainedNode {
  readonly logicalOperator: LogicalOperator;
  readonly result: boolean;
  readonly conditions: readonly ConditionExplanation[];
}

/** A THRESHOLD or RATE_CHANGE condition tree as evaluated at a transition. */
export type ConditionExplanation = ExplainedCondition | ExplainedNode;

/** One event of a PATTERN match: its eventId (`evt_<id>`) and receipt time (ISO 8601 UTC). */
export interface ExplainedPatternEvent {
  readonly eventId: string;
  readonly at: string;
}

/** One step of a PATTERN match: how many events it took, the first and the last of them. */
export interface ExplainedPatternStep {
  readonly eventType: string;
  readonly events: number;
  readonly first: ExplainedPatternEvent;
  readonly last: ExplainedPatternEvent;
}

/** One completed sequence (for an `absent` rule: one whose awaited event did not come). */
export interface ExplainedPatternMatch {
  /** The partition key's value, e.g. the userId. */
  readonly partitionKey: string;
  readonly completedAt: string;
  readonly steps: readonly ExplainedPatternStep[];
  /** `absent` rules: the event that did not follow, and the deadline that passed. */
  readonly absent: { readonly eventType: string; readonly deadline: string } | null;
}

/** A PATTERN rule's evaluation: the sequences completed since the previous one (the first listed). */
export interface ExplainedPattern {
  readonly pattern: 'PATTERN';
  readonly partitionBy: string;
  readonly withinMinutes: number;
  readonly result: boolean;
  /** Sequences completed since the previous evaluation; `matches` lists the first of them. */
  readonly matchCount: number;
  readonly matches: readonly ExplainedPatternMatch[];
}

/**
 * A rule as evaluated at a transition (FIRING or RESOLVED): a condition tree, a PATTERN's
 * matches, or an ANOMALY's band.
 */
export type Explanation = ConditionExplanation | ExplainedPattern | ExplainedBand;

/** The state of an incident: open from FIRING until RESOLVED. */
export const ALERT_STATES = ['FIRING', 'RESOLVED'] as const;
export type AlertState = (typeof ALERT_STATES)[number];

/** What a notification tells: an incident fired or resolved, or a digest of held-back ones. */
export const NOTIFICATION_TRANSITIONS = ['FIRING', 'RESOLVED', 'DIGEST'] as const;
export type NotificationTransition = (typeof NOTIFICATION_TRANSITIONS)[number];
/** The transitions of one incident that are notified. */
export type IncidentTransition = Exclude<NotificationTransition, 'DIGEST'>;

/** What /topic/alerts says happened to an alert. */
export const ALERT_TRANSITIONS = ['FIRING', 'RESOLVED', 'ACKNOWLEDGED'] as const;
export type AlertTransitionName = (typeof ALERT_TRANSITIONS)[number];

/** The outcome of one notification channel for one alert. */
export interface DeliveryResult {
  /** The rule's notificationChannels entry: `slack`, `slack:oncall` (never a URL). */
  readonly channel: string;
  readonly ok: boolean;
  /** Attempts made; 0 when nothing was sent (invalid config, host not allowed, no SMTP_URL). */
  readonly attempts: number;
  /** HTTP status of the last response, or the SMTP reply code for email, when there was one. */
  readonly status?: number;
  /** Why it failed (absent when ok); never holds a URL, header or credential. */
  readonly error?: string;
  /** When the delivery finished, ISO 8601 UTC. */
  readonly at: string;
}

/**
 * A stored alert, as the API returns it: one incident, from FIRING until RESOLVED. Instants are
 * ISO 8601 UTC with zone, e.g. `2026-11-22T19:30:00.123Z`.
 */
export interface AlertRecord {
  /** The stored alert's id. */
  readonly id: number;
  readonly ruleId: number;
  readonly ruleName: string;
  readonly ruleVersion: number;
  readonly severity: RuleSeverity;
  readonly state: AlertState;
  /** When it fired; `triggeredAt` is the same instant (the field of before the lifecycle). */
  readonly firedAt: string;
  readonly triggeredAt: string;
  readonly resolvedAt: string | null;
  /** Why it resolved: `condition cleared`, `rule paused`, `rule archived`, `rule deleted`, ... */
  readonly resolvedReason: string | null;
  /** The values at the FIRING transition; `currentValues` holds the same (as before). */
  readonly valuesAtFire: Readonly<Record<string, number>>;
  /** The values when the condition recovered (not the last firing ones); null while FIRING. */
  readonly valuesAtResolve: Readonly<Record<string, number>> | null;
  readonly acknowledgedAt: string | null;
  readonly acknowledgedBy: string | null;
  readonly acknowledgeComment: string | null;
  /** The condition tree as evaluated when it fired (null for alerts stored before the lifecycle). */
  readonly explanation: Explanation | null;
  /** The condition tree as evaluated when it resolved; null while FIRING or when a rule change resolved it. */
  readonly resolveExplanation: Explanation | null;
  /** The leaves that made it fire, in words: `errorRate over 5 min = 0.083 > 0.05`. */
  readonly explanationText: string;
  /** A silence covered it when it fired: neither its FIRING nor its RESOLVED was notified. */
  readonly silenced: boolean;
  /** The silence that covered it (it may since have been deleted), null when none did. */
  readonly silenceId: number | null;
  /** maxAlertsPerHour was spent when it fired: not notified on its own, but in a DIGEST. */
  readonly heldByBudget: boolean;
  /** What made the rule true, e.g. `errorRate 12.5 > 5` (the rule test's matchedConditions). */
  readonly matchedConditions: readonly string[];
  /** Each metric of the condition, spelled as in ruleConfig, to its value over the rule's window. */
  readonly currentValues: Readonly<Record<string, number>>;
  /** The rule's whole condition as text, e.g. `errorRate > 20 [1 min]`. */
  readonly condition: string;
  readonly message: string;
  /** The FIRING notification: one per channel once delivery finished; empty before, or without. */
  readonly deliveries: readonly DeliveryResult[];
  /** The RESOLVED notification's, likewise. */
  readonly resolveDeliveries: readonly DeliveryResult[];
}

/** What notification channels read of an alert (the webhook body, the Slack and e-mail texts). */
export type AlertPayload = Omit<AlertRecord, 'condition' | 'deliveries' | 'resolveDeliveries'>;

/** An alert on /topic/alerts: the alert as stored, and what just happened to it. */
export type AlertMessage = AlertRecord & { readonly transition: AlertTransitionName };

/**
 * An alert the evaluator decided to fire, not yet stored; `triggeredAt` is epoch ms. It carries
 * what its delivery needs of the rule as evaluated (with `ruleVersion`): the front thread
 * notifies from it without reading the rule again.
 */
export interface FiredAlert
  extends
    Pick<
      AlertRecord,
      | 'ruleId'
      | 'ruleName'
      | 'ruleVersion'
      | 'severity'
      | 'matchedConditions'
      | 'currentValues'
      | 'condition'
      | 'message'
      | 'explanationText'
    >,
    RuleNotification {
  readonly triggeredAt: number;
  readonly explanation: Explanation | null;
  /** maxAlertsPerHour was spent: recorded, and notified only in the next DIGEST. */
  readonly heldByBudget: boolean;
}

/**
 * The budget of a rule has room again and incidents were held back since `since` (epoch ms): a
 * DIGEST of those fired before `until` is due, to the rule's channels (carried, not re-read).
 */
export interface DigestDue
  extends Pick<AlertRecord, 'ruleId' | 'ruleName' | 'ruleVersion' | 'severity'>, RuleNotification {
  readonly maxAlertsPerHour: number;
  readonly since: number;
  readonly until: number;
}

/** One held-back incident as a digest lists it. */
export interface DigestEntry {
  readonly alertId: number;
  readonly firedAt: string;
  readonly state: AlertState;
  readonly explanationText: string;
}

/** A digest as stored: the incidents of one rule the budget held back, counted and the first listed. */
export interface DigestRecord extends Pick<
  AlertRecord,
  'ruleId' | 'ruleName' | 'ruleVersion' | 'severity'
> {
  readonly id: number;
  /** How many incidents were held back (all of them, whatever `alerts` lists). */
  readonly heldBack: number;
  /** The first held-back incident's firing time and the digest's time, ISO 8601 UTC. */
  readonly from: string;
  readonly until: string;
  /** The first DIGEST_LISTED of them, oldest first. */
  readonly alerts: readonly DigestEntry[];
  readonly maxAlertsPerHour: number;
}

/** Incidents a digest lists by name; the rest are counted. */
export const DIGEST_LISTED = 10;

/**
 * Why the evaluator resolved a rule's open incident: its condition cleared, or the rule left
 * evaluation (paused, archived, deleted: the storage worker states which from the rule's status).
 */
export type ResolveCause = 'condition-cleared' | 'rule-inactive';

/** The evaluator resolved the open incident of `ruleId`; `resolvedAt` is epoch ms. */
export interface AlertResolution {
  readonly ruleId: number;
  readonly resolvedAt: number;
  readonly cause: ResolveCause;
  readonly valuesAtResolve: Readonly<Record<string, number>> | null;
  readonly resolveExplanation: Explanation | null;
}

/**
 * A rule that holds and has not fired (issue 34): published on /topic/alerts as it is, never
 * stored (no incident exists yet). `reason` says why it waits: its pendingSeconds, or its
 * suppression window (`suppressedUntil`).
 */
export interface RulePending {
  readonly kind: 'pending';
  readonly ruleId: number;
  readonly ruleName: string;
  readonly severity: RuleSeverity;
  /** ISO 8601: since when the condition holds. */
  readonly pendingSince: string;
  /** ISO 8601, or null when not held by suppression. */
  readonly suppressedUntil: string | null;
  readonly reason: string;
}

/** The /topic/alerts message of a PENDING rule. */
export type PendingMessage = Omit<RulePending, 'kind'> & { readonly transition: 'PENDING' };

/** What the metrics actor decided about one rule's incident (it posts these to the front). */
export type AlertTransition =
  | { readonly kind: 'fired'; readonly alert: FiredAlert }
  | { readonly kind: 'resolved'; readonly resolution: AlertResolution }
  | { readonly kind: 'digest'; readonly digest: DigestDue };

/** A stored incident and the channels its notifications go to (those it fired with). */
export interface StoredAlert {
  readonly alert: AlertRecord;
  readonly notify: RuleNotification;
}

/**
 * A transition as stored, in the place of the one decided: the incident a firing created, the
 * open incidents a resolution closed (normally one; none when the rule had none open), or the
 * digest written (null when no held-back incident was left to list).
 */
export type StoredTransition =
  | ({ readonly kind: 'fired' } & StoredAlert)
  | { readonly kind: 'resolved'; readonly alerts: readonly StoredAlert[] }
  | {
      readonly kind: 'digest';
      readonly digest: DigestRecord | null;
      readonly notify: RuleNotification;
    };

/**
 * The delivery results of one notification, to be written where it belongs: on the alert (its
 * FIRING or RESOLVED notification; `id` is the alert's) or on the digest (`id` is the digest's).
 */
export interface AlertDeliveries {
  readonly transition: NotificationTransition;
  readonly id: number;
  readonly deliveries: readonly DeliveryResult[];
}

/** The filters of GET /api/v1/alerts. */
export interface AlertFilter {
  readonly ruleId: number | null;
  readonly severity: RuleSeverity | null;
  readonly state: AlertState | null;
  /** Epoch ms: alerts fired at or after it. */
  readonly since: number | null;
  /** Epoch ms: alerts fired before it. */
  readonly until: number | null;
}

/** Who acknowledged an alert (POST /api/v1/alerts/{id}/acknowledge); `at` is epoch ms. */
export interface Acknowledgement {
  readonly by: string;
  readonly comment: string | null;
  readonly at: number;
}

/** The rule a transition is about. */
export const ruleOfTransition = (transition: AlertTransition): number => {
  switch (transition.kind) {
    case 'fired':
      return transition.alert.ruleId;
    case 'resolved':
      return transition.resolution.ruleId;
    case 'digest':
      return transition.digest.ruleId;
  }
};
