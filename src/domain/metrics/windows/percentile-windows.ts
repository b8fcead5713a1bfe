/**
 * @module Windowed latency percentiles for one moment, all in one sweep: a merge of minute histograms
 * grown from the current minute back is read at the end of each window; a window before the live
 * one (start > 0) is that merge minus a copy taken when the sweep passed its start, and is kept
 * across ticks (past-windows.ts), so the sweep mostly stops at the deepest live window.
 */
import type { Histogram } from 'hdr-histogram-js';
import { percentileOf } from '../state/latency-histograms.ts';
import { formatMetricName, type MetricRef } from './metric-names.ts';
import type { MetricsState } from '../state/metrics-state.ts';
import { sumOver, type MinuteColumns } from './minute-columns.ts';
import { PastWindows } from '../state/past-windows.ts';
import type { WindowReads } from './window-reads.ts';

const PERCENTILES: Readonly<Record<string, number>> = {
  latencyP50: 50,
  latencyP95: 95,
  latencyP99: 99,
};
/** The percentile a read of latencyP50 / P95 / P99 asks for. */
const percentileOfRef = (ref: MetricRef): number =>
  ref.kind === 'scalar' ? (PERCENTILES[ref.name] ?? 0) : 0;

/** Writes the value of every read of `slots` (percentiles, by end then start) into `values`. */
export function fillPercentiles(
  state: MetricsState,
  columns: MinuteColumns,
  reads: WindowReads,
  slots: readonly number[],
  values: Float64Array,
): void {
  const { histograms, currentMinute, pastWindows } = state;
  const { depth } = columns;
  const pastKey = (slot: number): string => {
    const read = reads.at(slot);
    const start = Math.min(read.start, depth);
    const end = Math.min(read.end, depth);
    return PastWindows.key(
      formatMetricName(read.ref),
      start,
      end,
      sumOver(columns.events, start, end),
    );
  };
  // Empty windows read 0, and windows before kept from an earlier tick need no merge.
  const pending: number[] = [];
  const starts = new Set<number>();
  for (const slot of slots) {
    const { start, end } = reads.at(slot);
    if (sumOver(columns.events, Math.min(start, depth), Math.min(end, depth)) === 0) {
      values[slot] = 0;
    } else if (start === 0) {
      pending.push(slot);
    } else {
      const kept = pastWindows.find(currentMinute, pastKey(slot));
      if (kept !== undefined) {
        values[slot] = kept;
      } else {
        pending.push(slot);
        starts.add(start);
      }
    }
  }
  const startsInOrder = [...starts].sort((a, b) => a - b);

  const merge = histograms.createMerge();
  let merged = 0; // offsets 0..merged-1 are in `merge`
  const growTo = (offset: number): void => {
    if (offset <= merged) return;
    histograms.mergeInto(merge, currentMinute - offset + 1, currentMinute - merged, currentMinute);
    merged = offset;
  };
  const copies = new Map<number, Histogram>(); // by start: `merge` as it was there
  let nextStart = 0;
  const range = histograms.createMerge(); // the last window that starts before now
  let rangeKey = -1;
  // Windows holding the same minutes with events have the same percentiles.
  const known = new Map<number, number>();
  for (const slot of pending) {
    const read = reads.at(slot);
    const start = Math.min(read.start, depth);
    const end = Math.min(read.end, depth);
    for (; nextStart < startsInOrder.length && startsInOrder[nextStart]! <= end; nextStart++) {
      const at = startsInOrder[nextStart]!;
      growTo(at);
      const copy = histograms.createMerge();
      copy.add(merge);
      copies.set(at, copy);
    }
    growTo(end);
    const percentile = percentileOfRef(read.ref);
    const key = columns.rangeKey(start, end);
    let value = known.get(key * 100 + percentile);
    if (value === undefined) {
      let window = merge;
      if (start > 0) {
        if (key !== rangeKey) {
          range.reset();
          range.add(merge);
          range.subtract(copies.get(start)!); // every start was passed: start < end
          rangeKey = key;
        }
        window = range;
      }
      // Kept within the window's exact min and max.
      value = Math.min(
        columns.highestLatency(start, end),
        Math.max(columns.lowestLatency(start, end), percentileOf(window, percentile)),
      );
      known.set(key * 100 + percentile, value);
    }
    values[slot] = value;
    if (start > 0) pastWindows.keep(pastKey(slot), value);
  }
}
