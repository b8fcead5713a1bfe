/**
 * @module The event types and sources a rule set names (issue 29): the metrics count these by name
 * whatever their caps, so that no flood of other keys folds what a rule watches into `(other)`.
 * Bounded by the rule set (MAX_RULES rules, each naming at most MAX_CONDITIONS leaves or its steps),
 * not by the traffic.
 */
import type { WatchedKeys } from '../metrics/state/last-event-times.ts';
import { kindOf } from './kinds/registry.ts';
import type { ActiveRule } from './rule.ts';

interface MutableKeys {
  readonly types: Set<string>;
  readonly sources: Set<string>;
}

/**
 * What the rules name: THRESHOLD / RATE_CHANGE leaves (eventsByType[x], eventsBySource[x],
 * secondsSinceLastEventByType/BySource[x]), ANOMALY filters (eventType, source), PATTERN steps and
 * `absent` (eventType, and `where` conditions `eventType` / `source` EQUALS a string). A PATTERN
 * rule matches the stored events themselves, never the capped maps, so it is exact anyway: its keys
 * are watched so the snapshot shows them by name too. partitionBy names a field, not a key.
 */
export function watchedKeysOf(
  rules: readonly Pick<ActiveRule, 'ruleType' | 'ruleConfig'>[],
): WatchedKeys {
  const keys: MutableKeys = { types: new Set(), sources: new Set() };
  for (const rule of rules) kindOf(rule.ruleType).evaluation.watchKeys(rule.ruleConfig, keys);
  return keys;
}
