/**
 * @module The event types and sources a rule set names (issue 29): the metrics count these by name
 * whatever their caps, so that no flood of other keys folds what a rule watches into `(other)`.
 * Bounded by the rule set (MAX_RULES rules, each naming at most MAX_CONDITIONS leaves or its steps),
 * not by the traffic.
 */
import type { WatchedKeys } from '../metrics/state/last-event-times.ts';
import { parseMetricName } from '../metrics/windows/metric-names.ts';
import { anomalyConfigOf } from './anomaly/anomaly-rules.ts';
import type { PatternCondition } from './pattern/pattern-config.ts';
import { storedPatternConfig } from './pattern/pattern-validation.ts';
import type { ActiveRule } from './rule.ts';
import { CONDITION_RULE_TYPES, leaves, type Condition } from './rule-types.ts';

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
  for (const rule of rules) {
    if (CONDITION_RULE_TYPES.has(rule.ruleType)) conditionKeys(rule.ruleConfig as Condition, keys);
    else if (rule.ruleType === 'ANOMALY') {
      const config = anomalyConfigOf(rule.ruleConfig);
      if (config?.eventType !== undefined) keys.types.add(config.eventType);
      if (config?.source !== undefined) keys.sources.add(config.source);
    } else if (rule.ruleType === 'PATTERN') {
      const config = storedPatternConfig(rule.ruleConfig);
      if (config === null) continue;
      const filters = config.absent === undefined ? config.steps : [...config.steps, config.absent];
      for (const filter of filters) {
        keys.types.add(filter.eventType);
        filter.where.forEach((condition) => whereKey(condition, keys));
      }
    }
  }
  return keys;
}

function conditionKeys(condition: Condition, keys: MutableKeys): void {
  for (const leaf of leaves(condition)) {
    const ref = parseMetricName(leaf.metric);
    if (ref === null || ref.kind === 'scalar') continue;
    if (ref.kind === 'indexed') {
      if (ref.map === 'eventsByType') keys.types.add(ref.key);
      if (ref.map === 'eventsBySource') keys.sources.add(ref.key);
    } else if (ref.scope === 'type') keys.types.add(ref.key);
    else if (ref.scope === 'source') keys.sources.add(ref.key);
  }
}

function whereKey(condition: PatternCondition, keys: MutableKeys): void {
  if (condition.operator !== 'EQUALS' || typeof condition.value !== 'string') return;
  if (condition.field === 'eventType') keys.types.add(condition.value);
  if (condition.field === 'source') keys.sources.add(condition.value);
}
