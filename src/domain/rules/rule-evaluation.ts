/**
 * @module A rule evaluated by its type's name: the kind comes from the registry (kinds/registry.ts),
 * the work from evaluator.ts, which the kinds themselves use and so cannot ask the registry.
 */
import type { WindowedMetrics } from '../metrics/windows/window-reads.ts';
import {
  cachedPrepare,
  evaluateKind,
  holds,
  type EvaluationResult,
  type PreparedRule,
  type PreparedSet,
} from './evaluator.ts';
import { ruleKinds, type RuleKindRegistry } from './kinds/registry.ts';
import type { RuleConfig } from './rule-types.ts';

/**
 * Prepares a validated config (the output of validateRuleConfig for `ruleType`) into `set`, as its
 * kind does (kinds/registry.ts); throws on an unknown metric, which only an unvalidated config can
 * hold. `activeSince`: epoch ms at which the rule became ACTIVE (-Infinity: unknown); a
 * producer-silent metric of a key with no event yet counts from the later of it and the metrics'
 * start.
 */
export function prepareRule(
  ruleType: string,
  config: RuleConfig,
  set: PreparedSet,
  activeSince = Number.NEGATIVE_INFINITY,
  kinds: RuleKindRegistry = ruleKinds(),
): PreparedRule {
  return kinds.get(ruleType).evaluation.prepare(config, set, activeSince);
}

/**
 * Would the rule trigger now? Detailed result for tests and alerts. `activeSince` as in
 * prepareRule.
 */
export function evaluateRule(
  ruleType: string,
  config: RuleConfig,
  metrics: WindowedMetrics,
  activeSince = Number.NEGATIVE_INFINITY,
  kinds: RuleKindRegistry = ruleKinds(),
): EvaluationResult {
  return evaluateKind(kinds.get(ruleType), config, metrics, activeSince);
}

/** The fast yes / no of evaluateRule. */
export function ruleHolds(
  ruleType: string,
  config: RuleConfig,
  metrics: WindowedMetrics,
  kinds: RuleKindRegistry = ruleKinds(),
): boolean {
  const { rule, reads } = cachedPrepare(kinds.get(ruleType), config, Number.NEGATIVE_INFINITY);
  return holds(rule, metrics.valuesOf(reads));
}
