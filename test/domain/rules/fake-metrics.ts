/**
 * @module A test double of the WindowedMetrics interface: values by metric name (optionally per
 * window as `name@window`), previous-window values, and the indexed keys seen.
 */
import {
  formatMetricName,
  type IndexedMetric,
  type MetricRef,
} from '../../../src/domain/metrics/windows/metric-names.ts';
import type {
  WindowReads,
  WindowedMetrics,
} from '../../../src/domain/metrics/windows/window-reads.ts';

export interface FakeMetricsInput {
  /** `errorRate` or `errorRate@10` (window-specific) → value; absent → 0. */
  readonly values?: Readonly<Record<string, number>>;
  /** Same keys, for the window before the last one (RATE_CHANGE). */
  readonly previous?: Readonly<Record<string, number>>;
  /** Indexed keys seen since start, as `eventsByType[checkout.paid]`; default: those in `values`. */
  readonly keys?: readonly string[];
}

export interface FakeMetrics extends WindowedMetrics {
  /** Every value read, as `name@window` (`previous name@window` for the window before). */
  readonly reads: string[];
}

const lookup = (map: Readonly<Record<string, number>>, ref: MetricRef, w: number): number => {
  const name = formatMetricName(ref);
  return map[`${name}@${w}`] ?? map[name] ?? 0;
};

export function fakeMetrics(input: FakeMetricsInput = {}): FakeMetrics {
  const values = input.values ?? {};
  const previous = input.previous ?? {};
  const keys = new Set(input.keys ?? Object.keys(values).map((k) => k.replace(/@\d+$/, '')));
  const reads: string[] = [];
  return {
    reads,
    valuesOf(slots: WindowReads) {
      return {
        get(slot: number) {
          const { ref, minutes, previous: before } = slots.at(slot);
          reads.push(`${before ? 'previous ' : ''}${formatMetricName(ref)}@${minutes}`);
          return lookup(before ? previous : values, ref, minutes);
        },
      };
    },
    hasKey(map: IndexedMetric, key: string) {
      return keys.has(`${map}[${key}]`);
    },
  };
}
