/**
 * @module What a rule test says about a valid rule: the WARNING cases of DESIGN 6 (valid, but look
 * again) and best-practice recommendations. Pure: metrics are read through WindowedMetrics only.
 */
import {
  COUNT_METRICS,
  SILENCE_KEY_MAP,
  parseMetricName,
  type IndexedMetric,
  type MetricRef,
} from '../metrics/windows/metric-names.ts';
import type { WindowedMetrics } from '../metrics/windows/window-reads.ts';
import {
  CONDITION_RULE_TYPES,
  EVALUATED_RULE_TYPES,
  RULE_DEFAULTS,
  isConditionNode,
  leaves,
  type Condition,
  type ConditionLeaf,
  type RuleConfig,
  type RuleType,
} from './rule-types.ts';
import type { RuleFields } from './rule.ts';
import { patternRecommendations } from './pattern/pattern-advice.ts';
import type { PatternConfig } from './pattern/pattern-config.ts';
import type { AnomalyConfig } from './anomaly/anomaly-config.ts';
import { anomalyWarnings } from './anomaly/anomaly-advice.ts';

/** The leaves of a validated THRESHOLD or RATE_CHANGE config; none for the other types. */
function configLeaves(ruleType: RuleType, config: RuleConfig): ConditionLeaf[] {
  return CONDITION_RULE_TYPES.has(ruleType) ? leaves(config as Condition) : [];
}

const baseName = (metric: string): string => {
  const ref = parseMetricName(metric);
  if (ref === null) return metric;
  return ref.kind === 'indexed' ? ref.map : ref.name;
};

/** The indexed map and key a metric names (eventsByType[x], secondsSinceLastEventByType[x]). */
function keyOf(ref: MetricRef): { map: IndexedMetric; key: string } | null {
  if (ref.kind === 'indexed') return ref;
  if (ref.kind === 'silence' && ref.name !== 'secondsSinceLastEvent') {
    return { map: SILENCE_KEY_MAP[ref.name], key: ref.key };
  }
  return null;
}

/**
 * The WARNING cases, exactly: a count metric against a non-integer, `errorRate` against a value
 * outside 0..100 (both THRESHOLD only: a RATE_CHANGE threshold is a percent change), an indexed
 * key no event has used since start or the last reset, and ANOMALY / PATTERN (not evaluated).
 * `config` must be the normalised output of validateRuleConfig for `ruleType`.
 */
export function ruleWarnings(
  ruleType: RuleType,
  config: RuleConfig,
  metrics: WindowedMetrics,
): string[] {
  if (ruleType === 'ANOMALY') return anomalyWarnings(config as AnomalyConfig, metrics);
  if (!EVALUATED_RULE_TYPES.has(ruleType)) {
    return [
      `${ruleType} rules are accepted and stored but not evaluated yet: this rule never triggers and is not simulated`,
    ];
  }
  const warnings = new Set<string>();
  for (const leaf of configLeaves(ruleType, config)) {
    const ref = parseMetricName(leaf.metric);
    if (ref === null) continue;
    if (ruleType === 'THRESHOLD') {
      if (COUNT_METRICS.has(baseName(leaf.metric)) && !Number.isInteger(leaf.threshold)) {
        warnings.add(
          `Metric '${leaf.metric}' counts events, but threshold ${leaf.threshold} is not an integer`,
        );
      }
      if (
        ref.kind === 'scalar' &&
        ref.name === 'errorRate' &&
        (leaf.threshold < 0 || leaf.threshold > 100)
      ) {
        warnings.add(
          `Metric 'errorRate' is a percentage from 0 to 100, but threshold ${leaf.threshold} is outside that range`,
        );
      }
    }
    const keyed = keyOf(ref);
    if (keyed !== null && !metrics.hasKey(keyed.map, keyed.key)) {
      warnings.add(
        `No event has used the key '${keyed.key}' of ${keyed.map} since start or the last reset: check the spelling of '${leaf.metric}'`,
      );
    }
  }
  return [...warnings];
}

/** The fields of a rule (or rule-test body) that recommendations look at; absent = default. */
export interface RuleAdviceInput
  extends Pick<RuleFields, 'ruleType'>, Partial<Pick<RuleFields, 'suppressionWindowMinutes'>> {
  readonly config: RuleConfig;
  readonly notificationChannels?: readonly string[] | null | undefined;
}

/** Best-practice hints (spec 2.9 `recommendations`); empty when none. */
export function recommendations(rule: RuleAdviceInput): string[] {
  const out: string[] = [];
  const suppression = rule.suppressionWindowMinutes ?? RULE_DEFAULTS.suppressionWindowMinutes;
  if (suppression === 0) {
    out.push(
      'Set a suppression window (suppressionWindowMinutes above 0): without one, a condition that stays true alerts on every evaluation, once a second, up to maxAlertsPerHour',
    );
  }
  if (rule.notificationChannels == null || rule.notificationChannels.length === 0) {
    out.push(
      'Add a notification channel (email, slack or webhook): without one, alerts are only stored and published on /topic/alerts',
    );
  }
  const seen = new Set<string>();
  const once = (text: string): void => {
    if (!seen.has(text)) out.push(text);
    seen.add(text);
  };
  for (const leaf of configLeaves(rule.ruleType, rule.config)) {
    // A silence metric has no window: its windowMinutes is accepted and has no effect.
    if (parseMetricName(leaf.metric)?.kind === 'silence') continue;
    if (leaf.windowMinutes === 1) {
      once(
        `'${leaf.metric}' uses a 1-minute window, which holds only the current, partial minute and restarts every minute: use at least 5 minutes for a steady signal`,
      );
    }
    const rate = rule.ruleType === 'RATE_CHANGE' || !COUNT_METRICS.has(baseName(leaf.metric));
    if (rate && (leaf.operator === 'EQUALS' || leaf.operator === 'NOT_EQUALS')) {
      once(
        `${leaf.operator} on '${leaf.metric}' compares a ${rule.ruleType === 'RATE_CHANGE' ? 'percent change' : 'rate or average'} exactly, which rarely or almost always holds: use a GREATER_THAN or LESS_THAN operator`,
      );
    }
  }
  if (rule.ruleType === 'PATTERN')
    out.push(...patternRecommendations(rule.config as PatternConfig));
  const root = rule.ruleType === 'THRESHOLD' ? (rule.config as Condition) : null;
  if (
    root !== null &&
    isConditionNode(root) &&
    root.logicalOperator !== 'NOT' &&
    root.conditions.length === 1
  ) {
    out.push(
      `${root.logicalOperator} with a single condition is the same as the condition alone: drop the logical operator or add conditions`,
    );
  }
  return out;
}
