/**
 * @module What a rule test says of a valid condition tree (THRESHOLD, RATE_CHANGE): the WARNING
 * cases of DESIGN 6 (valid, but look again) and the best-practice hints about its leaves.
 */
import {
  COUNT_METRICS,
  SILENCE_KEY_MAP,
  parseMetricName,
  type IndexedMetric,
  type MetricRef,
} from '../../../metrics/windows/metric-names.ts';
import type { WindowedMetrics } from '../../../metrics/windows/window-reads.ts';
import { isConditionNode, leaves, type Condition } from '../../rule-types.ts';

const baseName = (metric: string): string => {
  const ref = parseMetricName(metric);
  if (ref === null) return metric;
  return ref.kind === 'indexed' ? ref.map : ref.name;
};

/** The indexed map and key a metric names (eventsByType[x], secondsSinceLastEventByType[x]). */
function keyOf(ref: MetricRef): { map: IndexedMetric; key: string } | null {
  if (ref.kind === 'indexed') return ref;
  if (ref.kind === 'silence' && ref.name !== 'secondsSinceLastEvent') {
    return { map: SILENCE_KEY_MAP[ref.name], key: ref.key };
  }
  return null;
}

/**
 * The WARNING cases, exactly: a count metric against a non-integer, `errorRate` against a value
 * outside 0..100 (both only when `threshold` is a value: a RATE_CHANGE threshold is a percent
 * change), an indexed key no event has used since start or the last reset.
 */
export function conditionWarnings(
  config: Condition,
  metrics: WindowedMetrics,
  thresholdIsValue: boolean,
): string[] {
  const warnings = new Set<string>();
  for (const leaf of leaves(config)) {
    const ref = parseMetricName(leaf.metric);
    if (ref === null) continue;
    if (thresholdIsValue) {
      if (COUNT_METRICS.has(baseName(leaf.metric)) && !Number.isInteger(leaf.threshold)) {
        warnings.add(
          `Metric '${leaf.metric}' counts events, but threshold ${leaf.threshold} is not an integer`,
        );
      }
      if (
        ref.kind === 'scalar' &&
        ref.name === 'errorRate' &&
        (leaf.threshold < 0 || leaf.threshold > 100)
      ) {
        warnings.add(
          `Metric 'errorRate' is a percentage from 0 to 100, but threshold ${leaf.threshold} is outside that range`,
        );
      }
    }
    const keyed = keyOf(ref);
    if (keyed !== null && !metrics.hasKey(keyed.map, keyed.key)) {
      warnings.add(
        `No event has used the key '${keyed.key}' of ${keyed.map} since start or the last reset: check the spelling of '${leaf.metric}'`,
      );
    }
  }
  return [...warnings];
}

/**
 * Hints about the leaves: a 1-minute window, an exact comparison of a rate (or of a percent
 * change when `percentChange`), a logical node of one condition.
 */
export function conditionRecommendations(config: Condition, percentChange: boolean): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const once = (text: string): void => {
    if (!seen.has(text)) out.push(text);
    seen.add(text);
  };
  for (const leaf of leaves(config)) {
    // A silence metric has no window: its windowMinutes is accepted and has no effect.
    if (parseMetricName(leaf.metric)?.kind === 'silence') continue;
    if (leaf.windowMinutes === 1) {
      once(
        `'${leaf.metric}' uses a 1-minute window, which holds only the current, partial minute and restarts every minute: use at least 5 minutes for a steady signal`,
      );
    }
    const rate = percentChange || !COUNT_METRICS.has(baseName(leaf.metric));
    if (rate && (leaf.operator === 'EQUALS' || leaf.operator === 'NOT_EQUALS')) {
      once(
        `${leaf.operator} on '${leaf.metric}' compares a ${percentChange ? 'percent change' : 'rate or average'} exactly, which rarely or almost always holds: use a GREATER_THAN or LESS_THAN operator`,
      );
    }
  }
  if (
    isConditionNode(config) &&
    config.logicalOperator !== 'NOT' &&
    config.conditions.length === 1
  ) {
    out.push(
      `${config.logicalOperator} with a single condition is the same as the condition alone: drop the logical operator or add conditions`,
    );
  }
  return out;
}
