/**
 * @module A rule's condition as one readable line, as its kind writes it (kinds/registry.ts),
 * stored on each alert so the alert still says what fired after the rule changes or is deleted.
 */
import { ruleKinds, type RuleKindRegistry } from './kinds/registry.ts';
import type { RuleConfig } from './rule-types.ts';

export const conditionText = (
  ruleType: string,
  config: RuleConfig,
  kinds: RuleKindRegistry = ruleKinds(),
): string => kinds.get(ruleType).text(config);
