/**
 * @module The vocabulary of rules (spec 2.5-2.7, DESIGN 6): enums, operators and the normalised
 * ruleConfig shapes that validation produces and the DRL generator and evaluator consume.
 */
import type { LifecycleKeys } from './alerts/lifecycle-keys.ts';
import type { AnomalyConfig } from './kinds/anomaly/anomaly-config.ts';

export { CONDITION_RULE_TYPES, RULE_TYPES, type RuleType } from './kinds/names.ts';
import { RULE_TYPES, type RuleType } from './kinds/names.ts';

export const RULE_STATUSES = ['ACTIVE', 'PAUSED', 'ARCHIVED'] as const;
export type RuleStatus = (typeof RULE_STATUSES)[number];

export { RULE_SEVERITIES, type RuleSeverity } from '../severity.ts';

export { NOTIFICATION_CHANNELS, type NotificationChannel } from './alerts/channels.ts';

/**
 * Rule types whose ruleConfig is validated and evaluated: every kind (kinds/registry.ts is what
 * validation asks; this set is the names, for code that must not load the kinds).
 */
export const EVALUATED_RULE_TYPES: ReadonlySet<RuleType> = new Set(RULE_TYPES);

/** Why a rule type no kind serves is refused (the 400's message for ruleType). */
export const notAvailableYet = (ruleType: string, served: readonly string[] = RULE_TYPES): string =>
  `${ruleType} rules are not available yet: ruleType must be one of ${served.join(', ')}`;

/** Comparison operators by name (spec 2.7) with the symbol used in DRL and in messages. */
export const OPERATORS = {
  GREATER_THAN: '>',
  GREATER_THAN_OR_EQUAL: '>=',
  LESS_THAN: '<',
  LESS_THAN_OR_EQUAL: '<=',
  EQUALS: '==',
  NOT_EQUALS: '!=',
} as const;
export type OperatorName = keyof typeof OPERATORS;
export type OperatorSymbol = (typeof OPERATORS)[OperatorName];
export const OPERATOR_NAMES = Object.keys(OPERATORS) as readonly OperatorName[];

export const LOGICAL_OPERATORS = ['AND', 'OR', 'NOT'] as const;
export type LogicalOperator = (typeof LOGICAL_OPERATORS)[number];

export const DEFAULT_WINDOW_MINUTES = 5;
export const MAX_WINDOW_MINUTES = 1440;
/** RATE_CHANGE also reads the window before the last one: both must fit the 24 h retention. */
export const MAX_RATE_CHANGE_WINDOW_MINUTES = 720;
/** Bounds on a condition tree, so that no config can exhaust the stack or the 1 s tick. */
export const MAX_CONDITION_DEPTH = 16;
export const MAX_CONDITIONS = 200;

/** Bounds on what a rule author sets: each is stored, shown and acted on (issue 17). */
export const MAX_RULE_NAME_CHARACTERS = 255;
export const MAX_RULE_DESCRIPTION_CHARACTERS = 2000;
/** One alert a second: more would only flood the channels. */
export const MAX_ALERTS_PER_HOUR = 3600;
/** One week. */
export const MAX_SUPPRESSION_WINDOW_MINUTES = 10080;

/** Defaults of spec 2.5 / 8. */
export const RULE_DEFAULTS = {
  priority: 0,
  suppressionWindowMinutes: 30,
  maxAlertsPerHour: 10,
} as const;

export {
  LIFECYCLE_KEYS,
  MAX_LIFECYCLE_SECONDS,
  type LifecycleKeys,
} from './alerts/lifecycle-keys.ts';
/** One comparison; normalised, it always carries its effective window. */
export interface ConditionLeaf extends LifecycleKeys {
  readonly metric: string;
  readonly operator: OperatorName;
  readonly threshold: number;
  readonly windowMinutes: number;
  /**
   * Hysteresis: while the rule is FIRING the leaf compares with this instead of `threshold`, so
   * it resolves only once the value crossed it (on the resolving side of `threshold`).
   */
  readonly recoveryThreshold?: number;
}

/**
 * AND / OR (one or more conditions) or NOT (exactly one). A node's `windowMinutes` is kept as the
 * user wrote it but only its leaves' windows are evaluated (each leaf inherited it on validation).
 */
export interface ConditionNode extends LifecycleKeys {
  readonly logicalOperator: LogicalOperator;
  readonly conditions: readonly Condition[];
  readonly windowMinutes?: number;
}

export type Condition = ConditionLeaf | ConditionNode;

/** THRESHOLD: a leaf or a tree of logical nodes. */
export type ThresholdConfig = Condition;
/** RATE_CHANGE: one leaf; `threshold` is compared with the percent change between two windows. */
export type RateChangeConfig = ConditionLeaf;
/**
 * PATTERN (pattern/pattern-config.ts, read through storedPatternConfig); ANOMALY: an AnomalyConfig
 * (anomaly/anomaly-config.ts). A rule of either type stored before it was accepted keeps the
 * object it was given, and never fires.
 */
export type OpaqueConfig = { readonly [key: string]: unknown };

/** A normalised ruleConfig: the shape depends on the rule type it was validated against. */
export type RuleConfig = ThresholdConfig | RateChangeConfig | AnomalyConfig | OpaqueConfig;

export const isConditionNode = (condition: Condition): condition is ConditionNode =>
  'logicalOperator' in condition;

/**
 * The condition tree that is evaluated and written into the DRL: the config without the
 * informational `windowMinutes` of logical nodes (every leaf already carries its own).
 */
export function conditionTree(condition: Condition): Condition {
  if (!isConditionNode(condition)) {
    const { metric, operator, threshold, windowMinutes } = condition;
    return { metric, operator, threshold, windowMinutes };
  }
  return {
    logicalOperator: condition.logicalOperator,
    conditions: condition.conditions.map(conditionTree),
  };
}

/** Structural equality of two condition trees; numbers compare with Object.is (so -0 != 0). */
export function sameCondition(a: Condition, b: Condition): boolean {
  if (isConditionNode(a)) {
    if (!isConditionNode(b)) return false;
    if (a.logicalOperator !== b.logicalOperator) return false;
    if (a.conditions.length !== b.conditions.length) return false;
    if (!Object.is(a.windowMinutes, b.windowMinutes)) return false;
    return a.conditions.every((child, i) => {
      const other = b.conditions[i];
      return other !== undefined && sameCondition(child, other);
    });
  }
  if (isConditionNode(b)) return false;
  return (
    a.metric === b.metric &&
    a.operator === b.operator &&
    Object.is(a.threshold, b.threshold) &&
    Object.is(a.windowMinutes, b.windowMinutes)
  );
}

/** The lifecycle keys of a validated config (PATTERN: keepFiringSeconds only), defaults applied. */
export function lifecycleOf(config: RuleConfig): Required<LifecycleKeys> {
  const keys = config as LifecycleKeys;
  return {
    pendingSeconds: keys.pendingSeconds ?? 0,
    keepFiringSeconds: keys.keepFiringSeconds ?? 0,
  };
}

/** The leaves of a tree in document order. */
export function leaves(condition: Condition): ConditionLeaf[] {
  const out: ConditionLeaf[] = [];
  const walk = (c: Condition): void => {
    if (isConditionNode(c)) c.conditions.forEach(walk);
    else out.push(c);
  };
  walk(condition);
  return out;
}
