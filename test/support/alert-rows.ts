/**
 * Rows for the alert repository tests, written straight through the repositories: a stored
 * THRESHOLD rule (errorRate > 20 over 1 minute, HIGH, no channel unless given) and the incident
 * the evaluator would fire for it.
 */
import type { Sql } from '../../src/db/connect.ts';
import { createRule } from '../../src/db/rules-repository.ts';
import type { FiredAlert } from '../../src/domain/rules/alerts/alert.ts';
import type { RuleFields, RuleRecord } from '../../src/domain/rules/rule.ts';

export async function storedRule(
  sql: Sql,
  name: string,
  over: Partial<RuleFields> = {},
): Promise<RuleRecord> {
  const created = await createRule(
    sql,
    {
      name,
      description: null,
      ruleType: 'THRESHOLD',
      ruleConfig: {
        metric: 'errorRate',
        operator: 'GREATER_THAN',
        threshold: 20,
        windowMinutes: 1,
      },
      severity: 'HIGH',
      priority: 0,
      notificationChannels: [],
      notificationConfig: null,
      suppressionWindowMinutes: 0,
      maxAlertsPerHour: 10,
      createdBy: null,
      ...over,
    },
    1000,
  );
  if (typeof created === 'string') throw new Error(created);
  return created;
}

/** The incident of `rule` fired at `triggeredAt`, to the channels it is given (default none). */
export const firedAlert = (
  rule: RuleRecord,
  triggeredAt: number,
  over: Partial<FiredAlert> = {},
): FiredAlert => ({
  ruleId: rule.id,
  ruleName: rule.name,
  ruleVersion: rule.version,
  severity: rule.severity,
  triggeredAt,
  matchedConditions: ['errorRate 50 > 20'],
  currentValues: { errorRate: 50 },
  condition: 'errorRate > 20 [1 min]',
  message: 'm',
  explanation: null,
  explanationText: '',
  notificationChannels: [],
  notificationConfig: null,
  heldByBudget: false,
  ...over,
});
