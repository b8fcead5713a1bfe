/**
 * @module Which rules a partial view of the events would mislead (cluster mode, issue 23): those
 * that count events. While an instance's metrics miss a live peer's batches, a count or a rate
 * reads low, a producer reads silent and an awaited event reads absent, so such a rule would fire
 * "rate dropped" or resolve "back to normal" on data that is only missing: it is held DEGRADED
 * instead. Ratios and latencies (errorRate, latency percentiles) are judged on the events that are
 * there; a partial view samples them but does not bias them. Pure.
 */
import { parseMetricName } from '../metrics/windows/metric-names.ts';
import { anomalyConfigOf } from './anomaly/anomaly-rules.ts';
import { COUNT_METRICS as ANOMALY_COUNTS } from './anomaly/anomaly-config.ts';
import {
  CONDITION_RULE_TYPES,
  leaves,
  type Condition,
  type RuleConfig,
  type RuleType,
} from './rule-types.ts';

/** The scalar metrics that grow with the number of events seen. */
const VOLUME_SCALARS: ReadonlySet<string> = new Set([
  'totalEvents',
  'totalErrors',
  'eventsPerSecond',
  'currentThroughput',
  'peakThroughput',
  'uniqueUsers',
  'uniqueSources',
  'uniqueEventTypes',
]);

/** A metric whose value a partial view makes lower (a count, a rate, a silence). */
function readsVolume(metric: string): boolean {
  const ref = parseMetricName(metric);
  if (ref === null) return false;
  return ref.kind !== 'scalar' || VOLUME_SCALARS.has(ref.name);
}

/** Whether the rule is held DEGRADED while the view is incomplete. */
export function countsEvents(ruleType: RuleType, ruleConfig: RuleConfig): boolean {
  if (CONDITION_RULE_TYPES.has(ruleType))
    return leaves(ruleConfig as Condition).some((leaf) => readsVolume(leaf.metric));
  if (ruleType === 'ANOMALY') {
    const config = anomalyConfigOf(ruleConfig);
    return config !== null && ANOMALY_COUNTS.includes(config.metric);
  }
  // PATTERN: a missing event completes no sequence (no false fire), except the one awaited by
  // an `absent` step, whose deadline would pass.
  const absent = (ruleConfig as { readonly absent?: unknown }).absent;
  return absent !== undefined && absent !== null;
}
