/**
 * @module A rule's condition as one readable line (`errorRate > 5 [5 min] AND NOT (...)`), stored
 * on each alert so the alert still says what fired after the rule changes or is deleted.
 */
import { isSilenceMetric } from '../metrics/windows/metric-names.ts';
import {
  OPERATORS,
  isConditionNode,
  type Condition,
  type RuleConfig,
  type RuleType,
} from './rule-types.ts';
import { storedPatternConfig } from './pattern/pattern-validation.ts';
import { patternText } from './pattern/pattern-text.ts';
import type { AnomalyConfig } from './anomaly/anomaly-config.ts';
import { anomalyConditionText } from './anomaly/anomaly-advice.ts';

function text(condition: Condition): string {
  if (!isConditionNode(condition)) {
    const compared = `${condition.metric} ${OPERATORS[condition.operator]} ${condition.threshold}`;
    // A producer-silent metric has no window: its windowMinutes has no effect.
    return isSilenceMetric(condition.metric)
      ? compared
      : `${compared} [${condition.windowMinutes} min]`;
  }
  const parts = condition.conditions.map((c) => (isConditionNode(c) ? `(${text(c)})` : text(c)));
  return condition.logicalOperator === 'NOT'
    ? `NOT ${parts[0] ?? ''}`
    : parts.join(` ${condition.logicalOperator} `);
}

export function conditionText(ruleType: RuleType, config: RuleConfig): string {
  switch (ruleType) {
    case 'THRESHOLD':
      return text(config as Condition);
    case 'RATE_CHANGE': {
      const leaf = config as Condition;
      if (isConditionNode(leaf)) return text(leaf);
      const w = leaf.windowMinutes;
      return `percentChange(${leaf.metric}) ${OPERATORS[leaf.operator]} ${leaf.threshold} [last ${w} min vs the ${w} before]`;
    }
    case 'PATTERN': {
      const pattern = storedPatternConfig(config);
      return pattern === null ? `${ruleType} (not evaluated)` : patternText(pattern);
    }
    case 'ANOMALY':
      return anomalyConditionText(config as AnomalyConfig);
  }
}
