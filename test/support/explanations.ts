/**
 * A condition of an alert's explanation for tests: `errorRate` over 5 minutes, 12.5 > 5, true,
 * with any field replaced.
 */
import type { ExplainedCondition } from '../../src/domain/rules/alerts/alert.ts';

export const explainedLeaf = (over: Partial<ExplainedCondition> = {}): ExplainedCondition => ({
  metric: 'errorRate',
  key: null,
  measure: 'value',
  windowMinutes: 5,
  operator: 'GREATER_THAN',
  threshold: 5,
  recoveryThreshold: null,
  comparedWith: 5,
  value: 12.5,
  result: true,
  ...over,
});
