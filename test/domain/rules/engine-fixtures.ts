/**
 * @module Fixtures for the live evaluator tests: ACTIVE rules built from validated configs, and a
 * real Aggregator on a hand-driven clock fed with MetricEvents.
 */
import type { MetricEvent } from '../../../src/domain/event.ts';
import type { ActiveRule } from '../../../src/domain/rules/rule.ts';
import { validateRuleConfig } from '../../../src/domain/rules/rule-config-validation.ts';
import { EVALUATED_RULE_TYPES, type RuleType } from '../../../src/domain/rules/rule-types.ts';

export { HOUR, MINUTE, SECOND, T0, event, events, newAggregator } from '../metrics/fixtures.ts';

export const leaf = (
  metric: string,
  operator: string,
  threshold: number,
  windowMinutes?: number,
): Record<string, unknown> =>
  windowMinutes === undefined
    ? { metric, operator, threshold }
    : { metric, operator, threshold, windowMinutes };

export const node = (
  logicalOperator: 'AND' | 'OR' | 'NOT',
  ...conditions: Record<string, unknown>[]
): Record<string, unknown> => ({ logicalOperator, conditions });

/** An ACTIVE rule whose ruleConfig went through the validator (stored form); no throttling. */
export function activeRule(
  id: number,
  config: Record<string, unknown>,
  extra: Partial<Omit<ActiveRule, 'ruleConfig'>> = {},
): ActiveRule {
  const ruleType: RuleType = extra.ruleType ?? 'THRESHOLD';
  // ANOMALY is refused now; a rule stored before keeps the object it was given, as does a
  // PATTERN rule stored before its keys were defined (it has no `steps`).
  const legacy = ruleType === 'PATTERN' && !('steps' in config);
  const checked =
    EVALUATED_RULE_TYPES.has(ruleType) && !legacy
      ? validateRuleConfig(ruleType, config)
      : { ok: true as const, config };
  if (!checked.ok) throw new Error(checked.errors.join('; '));
  return {
    id,
    name: `rule ${id}`,
    version: 1,
    severity: 'HIGH',
    priority: 0,
    suppressionWindowMinutes: 0,
    maxAlertsPerHour: 1_000_000,
    notificationChannels: [],
    notificationConfig: null,
    recentAlerts: [],
    ...extra,
    // Suppression remembers the latest stored alert; the tests give the times in recentAlerts.
    lastAlertAt: extra.lastAlertAt ?? extra.recentAlerts?.at(-1) ?? null,
    heldSince: extra.heldSince ?? null,
    firingSince: extra.firingSince ?? null,
    ruleType,
    ruleConfig: checked.config,
  };
}

/** `errors` ERROR and `ok` INFO events received at `at`. */
export const mix = (at: number, errors: number, ok: number): MetricEvent[] => [
  ...Array.from({ length: errors }, (): MetricEvent => ({
    eventType: 'checkout.failed',
    source: 'web',
    userId: null,
    severity: 'ERROR',
    receivedAt: at,
    latencyMs: 10,
  })),
  ...Array.from({ length: ok }, (): MetricEvent => ({
    eventType: 'page.view',
    source: 'web',
    userId: null,
    severity: 'INFO',
    receivedAt: at,
    latencyMs: 10,
  })),
];
