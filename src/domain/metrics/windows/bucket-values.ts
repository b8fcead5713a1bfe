/**
 * @module Answers ANOMALY bucket reads from the live state (metrics actor): sums of the minute
 * buckets' counts, a percentile of the merged minute histograms, an estimate of the merged user
 * sketches. Read once per series per completed bucket, never per event.
 */
import type { Histogram } from 'hdr-histogram-js';
import { percentileOf } from '../state/latency-histograms.ts';
import type { MetricsState } from '../state/metrics-state.ts';
import { MINUTE_MS } from '../time.ts';
import type { BucketRead } from './bucket-read.ts';

const PERCENTILES = { latencyP50: 50, latencyP95: 95, latencyP99: 99 } as const;

/** Events and errors of `read`'s filter in minutes from..to-1. */
function counts(state: MetricsState, read: BucketRead, from: number, to: number): [number, number] {
  const typeId = read.eventType === undefined ? -1 : state.types.find(read.eventType);
  const sourceId = read.source === undefined ? -1 : state.sources.find(read.source);
  // A key no event in the 24 h used has no id: it counted nothing.
  if (typeId === undefined || sourceId === undefined) return [0, 0];
  let events = 0;
  let errors = 0;
  for (let minute = from; minute < to; minute++) {
    const bucket = state.buckets.get(minute);
    if (bucket === undefined) continue;
    if (typeId >= 0) {
      events += bucket.byType[typeId] ?? 0;
      errors += bucket.errorsByType[typeId] ?? 0;
    } else if (sourceId >= 0) {
      events += bucket.bySource[sourceId] ?? 0;
      errors += bucket.errorsBySource[sourceId] ?? 0;
    } else {
      events += bucket.events;
      errors += bucket.errors;
    }
  }
  return [events, errors];
}

/**
 * `read` over minutes from..to-1, or null when the state does not hold them all: before its start
 * (a restart or reset in the bucket) or out of the 24 h. `merge`: a scratch histogram.
 */
export function bucketValueOf(
  state: MetricsState,
  read: BucketRead,
  from: number,
  to: number,
  merge: () => Histogram,
): number | null {
  if (from < state.oldestMinute || from * MINUTE_MS < state.since || to > state.currentMinute + 1)
    return null;
  switch (read.metric) {
    case 'eventRate':
      return counts(state, read, from, to)[0];
    case 'errorRate': {
      const [events, errors] = counts(state, read, from, to);
      return events === 0 ? 0 : (errors / events) * 100;
    }
    case 'latencyP50':
    case 'latencyP95':
    case 'latencyP99': {
      const histogram = merge();
      histogram.reset();
      state.histograms.mergeInto(histogram, from, to - 1, state.currentMinute);
      return percentileOf(histogram, PERCENTILES[read.metric]);
    }
    case 'uniqueUsers':
      return state.userSketches.estimate(from, to - 1, state.currentMinute);
  }
}
