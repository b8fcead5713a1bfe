/**
 * @module What a condition tree reads (THRESHOLD, RATE_CHANGE): the span of metrics a restart or
 * a backtest must warm up, whether a partial view of the events misleads it (cluster mode), the
 * event types and sources it names, and whether it reads the clock.
 */
import type { WatchedKeys } from '../../../metrics/state/last-event-times.ts';
import { isSilenceMetric, parseMetricName } from '../../../metrics/windows/metric-names.ts';
import { readsTheClock } from '../../backtest/replay-metrics.ts';
import {
  MAX_WINDOW_MINUTES,
  leaves,
  type Condition,
  type ConditionLeaf,
} from '../../rule-types.ts';

/**
 * How long a leaf must be observed after a restart before its falseness means recovery: its
 * window; for a producer-silent leaf, its threshold (a key with no stored event counts again from
 * the restart, and takes that long to read as silent again), at most a day.
 */
function leafSpanMs(leaf: ConditionLeaf): number {
  if (!isSilenceMetric(leaf.metric)) return leaf.windowMinutes * 60_000;
  return Math.min(MAX_WINDOW_MINUTES * 60, Math.max(0, leaf.threshold)) * 1000 + 1000;
}

/** The longest span of its leaves, in ms. */
export const conditionSpanMs = (config: Condition): number =>
  Math.max(...leaves(config).map(leafSpanMs));

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

/** Whether a leaf counts events (partial-view.ts). */
export const conditionCountsEvents = (config: Condition): boolean =>
  leaves(config).some((leaf) => readsVolume(leaf.metric));

type MutableKeys = { readonly [K in keyof WatchedKeys]: Set<string> };

/** eventsByType[x], eventsBySource[x], secondsSinceLastEventByType/BySource[x]. */
export function conditionKeys(condition: Condition, keys: MutableKeys): void {
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

/** Whether a leaf reads the clock (a producer-silent metric): a backtest steps it every second. */
export const conditionReadsClock = (config: Condition): boolean =>
  leaves(config).some((leaf) => readsTheClock(leaf.metric));
