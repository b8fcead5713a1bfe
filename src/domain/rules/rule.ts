/**
 * @module The rule record (spec 2.5) and its variants, declared once: the fields its author sets,
 * the stored rule the API returns, and the ACTIVE rule the evaluator runs. Plain data only (they
 * cross threads); the variants are derived, so a new field is added in one place.
 */
import type { RuleConfig, RuleSeverity, RuleStatus, RuleType } from './rule-types.ts';

/** The fields of a rule that its author sets (a create body with its defaults applied). */
export interface RuleFields {
  readonly name: string;
  readonly description: string | null;
  readonly ruleType: RuleType;
  /** Normalised by validateRuleConfig for `ruleType`. */
  readonly ruleConfig: RuleConfig;
  readonly severity: RuleSeverity;
  /** The DRL salience: higher is evaluated first. */
  readonly priority: number;
  /** Channel entries (contact-point.ts): `slack` (the type's default contact point), `slack:oncall`. */
  readonly notificationChannels: readonly string[];
  /** Per channel type, non-secret settings merged over the contact point's (notification-config.ts). */
  readonly notificationConfig: Readonly<Record<string, unknown>> | null;
  readonly suppressionWindowMinutes: number;
  readonly maxAlertsPerHour: number;
  readonly createdBy: string | null;
}

/** A rule as stored and as the API returns it; times are UTC local date-times without zone. */
export interface RuleRecord extends RuleFields {
  readonly id: number;
  readonly status: RuleStatus;
  readonly generatedDrl: string;
  readonly drlHash: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly lastTriggeredAt: string | null;
  readonly triggerCount: number;
  readonly version: number;
}

/** What delivering a rule's alert needs of the rule: its channels and per-rule settings. */
export type RuleNotification = Pick<RuleFields, 'notificationChannels' | 'notificationConfig'>;

/**
 * What the evaluator needs of an ACTIVE rule, plus its stored alert history for throttling. It
 * carries the rule's notification settings too: a fired alert takes them along to delivery, so
 * nothing re-reads the rule on the way (issue 18 section 3).
 */
export interface ActiveRule
  extends
    Pick<
      RuleRecord,
      | 'id'
      | 'name'
      | 'version'
      | 'ruleType'
      | 'ruleConfig'
      | 'severity'
      | 'priority'
      | 'suppressionWindowMinutes'
      | 'maxAlertsPerHour'
    >,
    RuleNotification {
  /**
   * Epoch ms of the rule's stored incidents of the last hour that were not held back by the budget
   * (throttle.ts): rebuilds the budget after a restart.
   */
  readonly recentAlerts: readonly number[];
  /** Epoch ms of its latest incident, however old (a suppression window may exceed the hour). */
  readonly lastAlertAt: number | null;
  /** Epoch ms of its oldest incident held back by the budget and not yet in a digest. */
  readonly heldSince: number | null;
  /** Epoch ms at which its open incident fired, null when it has none: FIRING after a restart. */
  readonly firingSince: number | null;
}

/**
 * The alert history of a rule that has none (a new rule, a backtest's replay, a bench): no
 * incident, nothing held back, nothing open.
 */
export const NO_ALERT_HISTORY: Pick<
  ActiveRule,
  'recentAlerts' | 'lastAlertAt' | 'heldSince' | 'firingSince'
> = { recentAlerts: [], lastAlertAt: null, heldSince: null, firingSince: null };

/** The filters of GET /api/v1/rules. */
export interface RuleFilter {
  readonly status?: RuleStatus;
  readonly ruleType?: RuleType;
  /** Case-insensitive substring of name or description, taken literally. */
  readonly search?: string;
}

export interface RuleStatistics {
  readonly totalRules: number;
  readonly activeRules: number;
  readonly pausedRules: number;
  readonly archivedRules: number;
  readonly byType: Readonly<Record<RuleType, number>>;
}
