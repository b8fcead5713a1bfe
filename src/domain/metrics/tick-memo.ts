/**
 * @module WindowedMetrics memoised for one evaluation tick: thousands of rules read a few hundred
 * distinct (metric, window) values, and each is computed once per tick instead of once per rule.
 * Build a new one every tick; it must not outlive the moment it was made for.
 */
import type { IndexedMetric, MetricRef, WindowedMetrics } from './metric-names.ts';

const keyOf = (ref: MetricRef, windowMinutes: number): string =>
  ref.kind === 'scalar'
    ? `${ref.name}|${windowMinutes}`
    : `${ref.map}[${ref.key}]|${windowMinutes}`;

export function memoForTick(metrics: WindowedMetrics): WindowedMetrics {
  const current = new Map<string, number>();
  const previous = new Map<string, number>();
  return {
    value(ref, windowMinutes) {
      const key = keyOf(ref, windowMinutes);
      let value = current.get(key);
      if (value === undefined) {
        value = metrics.value(ref, windowMinutes);
        current.set(key, value);
      }
      return value;
    },
    previousValue(ref, windowMinutes) {
      const key = keyOf(ref, windowMinutes);
      let value = previous.get(key);
      if (value === undefined) {
        value = metrics.previousValue(ref, windowMinutes);
        previous.set(key, value);
      }
      return value;
    },
    hasKey: (map: IndexedMetric, key: string) => metrics.hasKey(map, key),
  };
}
