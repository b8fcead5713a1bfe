/**
 * @module The oracle of the window table: each windowed value computed the plain way, by a loop over
 * the window's minute buckets (the evaluator's implementation before per-tick tables).
 */
import { SEVERITIES, type Severity } from '../../../../src/domain/event.ts';
import { percentileOf } from '../../../../src/domain/metrics/state/latency-histograms.ts';
import type {
  MetricRef,
  ScalarMetric,
} from '../../../../src/domain/metrics/windows/metric-names.ts';
import type { MetricsState } from '../../../../src/domain/metrics/state/metrics-state.ts';
import type { MinuteBucket } from '../../../../src/domain/metrics/state/minute-buckets.ts';
import { RETENTION_MINUTES } from '../../../../src/domain/metrics/metrics-limits.ts';
import { SEVERITY_INDEX } from '../../../../src/domain/metrics/state/record-events.ts';
import { currentThroughput } from '../../../../src/domain/metrics/state/throughput.ts';
import { MINUTE_MS, SECOND_MS } from '../../../../src/domain/metrics/time.ts';

/** Minutes `from`..`to`, both included, clipped to the 24 h; empty when to < from. */
export interface MinuteRange {
  readonly from: number;
  readonly to: number;
  /** True when the range ends with the current, partial minute. */
  readonly live: boolean;
}

/**
 * The last `windowMinutes` (the current, partial minute plus the N-1 before it, DESIGN 4), or with
 * `previous` the `windowMinutes` just before those. N is clamped to 1..1440 (the retention).
 */
export function windowRange(
  state: MetricsState,
  windowMinutes: number,
  previous: boolean,
): MinuteRange {
  const n = Number.isNaN(windowMinutes)
    ? 1
    : Math.min(RETENTION_MINUTES, Math.max(1, Math.floor(windowMinutes)));
  const to = previous ? state.currentMinute - n : state.currentMinute;
  return { from: Math.max(state.oldestMinute, to - n + 1), to, live: !previous };
}

interface RangeSums {
  events: number;
  errors: number;
  latencySum: number;
  latencyMin: number;
  latencyMax: number;
  peakSecond: number;
}

function sumRange(state: MetricsState, range: MinuteRange): RangeSums {
  const sums = {
    events: 0,
    errors: 0,
    latencySum: 0,
    latencyMin: Infinity,
    latencyMax: -Infinity,
    peakSecond: 0,
  };
  for (let minute = range.from; minute <= range.to; minute++) {
    const bucket = state.buckets.get(minute);
    if (bucket === undefined) continue;
    sums.events += bucket.events;
    sums.errors += bucket.errors;
    sums.latencySum += bucket.latencySum;
    if (bucket.latencyMin < sums.latencyMin) sums.latencyMin = bucket.latencyMin;
    if (bucket.latencyMax > sums.latencyMax) sums.latencyMax = bucket.latencyMax;
    if (bucket.peakSecondCount > sums.peakSecond) sums.peakSecond = bucket.peakSecondCount;
  }
  return sums;
}

/** `ref` over `range`; `now` is the clock reading the state was advanced to. */
export function valueOver(
  state: MetricsState,
  ref: MetricRef,
  range: MinuteRange,
  now: number,
): number {
  if (ref.kind === 'indexed') {
    if (ref.map === 'eventsBySeverity') {
      const index = severityIndex(ref.key);
      return index === undefined ? 0 : sumPerMinute(state, range, (b) => b.severities[index]!);
    }
    const registry = ref.map === 'eventsByType' ? state.types : state.sources;
    const id = registry.find(ref.key);
    if (id === undefined) return 0;
    return ref.map === 'eventsByType'
      ? sumPerMinute(state, range, (b) => b.byType[id] ?? 0)
      : sumPerMinute(state, range, (b) => b.bySource[id] ?? 0);
  }
  if (ref.kind === 'silence') throw new Error('silence metrics have no window');
  return scalarOver(state, ref.name, range, now);
}

function scalarOver(
  state: MetricsState,
  name: ScalarMetric,
  range: MinuteRange,
  now: number,
): number {
  switch (name) {
    case 'uniqueUsers':
      return uniqueUsersOver(state, range);
    case 'uniqueEventTypes':
      return keysOver(state, range, 'byType', state.types.idLimit);
    case 'uniqueSources':
      return keysOver(state, range, 'bySource', state.sources.idLimit);
    case 'latencyP50':
      return percentileOver(state, range, 50);
    case 'latencyP95':
      return percentileOver(state, range, 95);
    case 'latencyP99':
      return percentileOver(state, range, 99);
    case 'currentThroughput':
      // The live value for the window that ends now; for the window before, the average rate
      // over it (a 5-second rate of the past is not kept beyond the last hour).
      return range.live
        ? currentThroughput(state.seconds, now)
        : eventsPerSecondOver(state, range, now);
    case 'eventsPerSecond':
      return eventsPerSecondOver(state, range, now);
    default:
      break;
  }
  const sums = sumRange(state, range);
  switch (name) {
    case 'totalEvents':
      return sums.events;
    case 'totalErrors':
      return sums.errors;
    case 'errorRate':
      return sums.events === 0 ? 0 : (100 * sums.errors) / sums.events;
    case 'avgLatency':
      return sums.events === 0 ? 0 : sums.latencySum / sums.events;
    case 'latencyMin':
      return sums.events === 0 ? 0 : sums.latencyMin;
    case 'latencyMax':
      return sums.events === 0 ? 0 : sums.latencyMax;
    case 'peakThroughput':
      return sums.peakSecond;
  }
}

function sumPerMinute(
  state: MetricsState,
  range: MinuteRange,
  count: (bucket: MinuteBucket) => number,
): number {
  let total = 0;
  for (let minute = range.from; minute <= range.to; minute++) {
    const bucket = state.buckets.get(minute);
    if (bucket !== undefined) total += count(bucket);
  }
  return total;
}

/**
 * Events in the range / seconds it covers: from its first minute's start (or start / reset, if
 * later) to now (live) or to its last minute's end; at least 1 s, and 0 when it lies before start.
 */
function eventsPerSecondOver(state: MetricsState, range: MinuteRange, now: number): number {
  const start = Math.max(range.from * MINUTE_MS, state.since);
  const end = range.live ? now : (range.to + 1) * MINUTE_MS;
  if (end <= start || range.to < range.from) return 0;
  return sumRange(state, range).events / Math.max(1, (end - start) / SECOND_MS);
}

/**
 * Exact while no user seen in the range was forgotten past the tracked-user cap and the range ends
 * now; otherwise (or for the window before) the HyperLogLog estimate of the range.
 */
function uniqueUsersOver(state: MetricsState, range: MinuteRange): number {
  if (range.to < range.from) return 0;
  if (range.live) {
    const exact = state.users.exactSince(range.from, range.to);
    if (exact !== null) return exact;
  }
  return state.userSketches.estimate(range.from, range.to, state.currentMinute);
}

let marks = new Uint8Array(0);

/** Keys (types or sources, `(other)` included) with at least one event in the range. */
function keysOver(
  state: MetricsState,
  range: MinuteRange,
  map: 'byType' | 'bySource',
  idLimit: number,
): number {
  if (marks.length < idLimit) marks = new Uint8Array(idLimit);
  else marks.fill(0, 0, idLimit);
  let keys = 0;
  for (let minute = range.from; minute <= range.to; minute++) {
    const counts = state.buckets.get(minute)?.[map];
    if (counts === undefined) continue;
    for (let id = 0; id < counts.length; id++) {
      if (counts[id] !== 0 && marks[id] === 0) {
        marks[id] = 1;
        keys++;
      }
    }
  }
  return keys;
}

/** From the merged histograms, kept within the range's exact min and max. */
function percentileOver(state: MetricsState, range: MinuteRange, percentile: number): number {
  const sums = sumRange(state, range);
  if (sums.events === 0) return 0;
  const merge = state.histograms.createMerge();
  state.histograms.mergeInto(merge, range.from, range.to, state.currentMinute);
  const value = percentileOf(merge, percentile);
  return Math.min(sums.latencyMax, Math.max(sums.latencyMin, value));
}

function severityIndex(key: string): number | undefined {
  return (SEVERITIES as readonly string[]).includes(key)
    ? SEVERITY_INDEX[key as Severity]
    : undefined;
}
