/**
 * @module What a rule test says about a valid rule: the WARNING cases of DESIGN 6 (valid, but look
 * again) and best-practice recommendations: the rule's own, then its kind's (kinds/registry.ts).
 * Pure: metrics are read through WindowedMetrics only.
 */
import type { WindowedMetrics } from '../metrics/windows/window-reads.ts';
import { ruleKinds, type RuleKindRegistry } from './kinds/registry.ts';
import { RULE_DEFAULTS, type RuleConfig } from './rule-types.ts';
import type { RuleFields } from './rule.ts';

/**
 * The WARNING cases of the rule's kind. `config` must be the normalised output of
 * validateRuleConfig for `ruleType`.
 */
export function ruleWarnings(
  ruleType: string,
  config: RuleConfig,
  metrics: WindowedMetrics,
  kinds: RuleKindRegistry = ruleKinds(),
): string[] {
  return kinds.get(ruleType).advice.warnings(config, metrics);
}

/** The fields of a rule (or rule-test body) that recommendations look at; absent = default. */
export interface RuleAdviceInput
  extends Pick<RuleFields, 'ruleType'>, Partial<Pick<RuleFields, 'suppressionWindowMinutes'>> {
  readonly config: RuleConfig;
  readonly notificationChannels?: readonly string[] | null | undefined;
}

/** Best-practice hints (spec 2.9 `recommendations`); empty when none. */
export function recommendations(
  rule: RuleAdviceInput,
  kinds: RuleKindRegistry = ruleKinds(),
): string[] {
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
  out.push(...kinds.get(rule.ruleType).advice.recommendations(rule.config));
  return out;
}
