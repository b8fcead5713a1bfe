/**
 * @module A condition tree as one readable line (`errorRate > 5 [5 min] AND NOT (...)`), stored
 * on each alert so the alert still says what fired after the rule changes or is deleted.
 */
import { isSilenceMetric } from '../../../metrics/windows/metric-names.ts';
import { OPERATORS, isConditionNode, type Condition } from '../../rule-types.ts';

export function conditionText(condition: Condition): string {
  if (!isConditionNode(condition)) {
    const compared = `${condition.metric} ${OPERATORS[condition.operator]} ${condition.threshold}`;
    // A producer-silent metric has no window: its windowMinutes has no effect.
    return isSilenceMetric(condition.metric)
      ? compared
      : `${compared} [${condition.windowMinutes} min]`;
  }
  const parts = condition.conditions.map((c) =>
    isConditionNode(c) ? `(${conditionText(c)})` : conditionText(c),
  );
  return condition.logicalOperator === 'NOT'
    ? `NOT ${parts[0] ?? ''}`
    : parts.join(` ${condition.logicalOperator} `);
}
