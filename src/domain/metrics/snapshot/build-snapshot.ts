/**
 * @module Builds the spec 2.10 snapshot from the metrics state (DESIGN 4): running totals for the
 * 24 h, the latency windows, the second ring and the tracked users. Every number is finite.
 */
import { SEVERITIES, type Severity } from '../../event.ts';
import type { KeyRegistry } from '../state/key-registry.ts';
import type { LatencyWindow } from '../state/latency-window.ts';
import type { MetricsState } from '../state/metrics-state.ts';
import type { MetricsCapsUsage } from '../state/cap-usage.ts';
import { RETENTION_MINUTES, TOP_USERS } from '../metrics-limits.ts';
import type { LatencyStats, MetricsSnapshot, TimeWindowStats } from './snapshot.ts';
import { averageThroughput, currentThroughput, throughputTrend } from '../state/throughput.ts';
import { hourOfMinute, isoOf } from '../time.ts';
import { clampWindow } from '../windows/window-read.ts';

const rate = (part: number, whole: number): number => (whole === 0 ? 0 : (100 * part) / whole);
const average = (sum: number, count: number): number => (count === 0 ? 0 : sum / count);

export function buildSnapshot(
  state: MetricsState,
  now: number,
  limits: MetricsCapsUsage,
): MetricsSnapshot {
  const { totals } = state;
  const eventsByType = countsByKey(state.types, totals.byType);
  const eventsBySource = countsByKey(state.sources, totals.bySource);
  const current = currentThroughput(state.seconds, now);
  const overall = state.overallLatency.stats();
  const peak = peakOfRetention(state);
  const live = windowRange(state, RETENTION_MINUTES);
  return {
    summary: {
      totalEvents: totals.events,
      eventsPerSecond: current,
      avgLatency: average(totals.latencySum, totals.events),
      errorRate: rate(totals.errors, totals.events),
      uniqueUsers: uniqueUsersOver(state, live),
      uniqueSources: eventsBySource.keys,
      uniqueEventTypes: eventsByType.keys,
    },
    eventsByType: eventsByType.map,
    eventsBySource: eventsBySource.map,
    eventsBySeverity: severityCounts(totals.severities),
    latencyMetrics: {
      overall: {
        p50: overall.p50,
        p95: overall.p95,
        p99: overall.p99,
        avg: overall.avg,
        min: overall.min,
        max: overall.max,
        sampleCount: overall.sampleCount,
      },
      byType: latencyByKey(state.types, state.typeLatency),
      bySource: latencyByKey(state.sources, state.sourceLatency),
    },
    errorMetrics: {
      totalErrors: totals.errors,
      errorRate: rate(totals.errors, totals.events),
      errorsByType: countsByKey(state.types, totals.errorsByType).map,
      errorsBySource: countsByKey(state.sources, totals.errorsBySource).map,
    },
    throughput: {
      current,
      peak: peak.count,
      peakTimestamp: isoOf(peak.count === 0 ? state.since : peak.at),
      avg: averageThroughput(state.seconds, now, state.since),
      trend: throughputTrend(state.seconds, now),
    },
    timeWindows: {
      last5Minutes: timeWindow(state, 5),
      last15Minutes: timeWindow(state, 15),
      last1Hour: timeWindow(state, 60),
    },
    topUsers: state.users.top(TOP_USERS, hourOfMinute(state.currentMinute)).map((user) => ({
      userId: user.userId,
      eventCount: user.eventCount,
      lastSeen: isoOf(user.lastSeen),
    })),
    limits,
  };
}

/** Keys with a count > 0 (so the map has exactly `keys` keys and sums to its total). */
function countsByKey(
  registry: KeyRegistry,
  counts: Float64Array,
): { map: Record<string, number>; keys: number } {
  const map = Object.create(null) as Record<string, number>;
  let keys = 0;
  for (let id = 0; id < counts.length; id++) {
    const count = counts[id]!;
    const name = count > 0 ? registry.nameOf(id) : undefined;
    if (name === undefined) continue;
    map[name] = count;
    keys++;
  }
  return { map, keys };
}

function latencyByKey(
  registry: KeyRegistry,
  windows: readonly (LatencyWindow | undefined)[],
): Record<string, LatencyStats> {
  const map = Object.create(null) as Record<string, LatencyStats>;
  for (let id = 0; id < windows.length; id++) {
    const window = windows[id];
    const name = registry.nameOf(id);
    if (window === undefined || name === undefined || window.sampleCount === 0) continue;
    const stats = window.stats();
    map[name] = { p50: stats.p50, p95: stats.p95, p99: stats.p99, avg: stats.avg };
  }
  return map;
}

function severityCounts(counts: Float64Array): Record<Severity, number> {
  const map = { INFO: 0, WARNING: 0, ERROR: 0, CRITICAL: 0 };
  SEVERITIES.forEach((severity, index) => {
    map[severity] = counts[index]!;
  });
  return map;
}

/** The highest 1-second count in the 24 h; the earliest second among equals. */
function peakOfRetention(state: MetricsState): { count: number; at: number } {
  let count = 0;
  let at = 0;
  for (let minute = state.oldestMinute; minute <= state.currentMinute; minute++) {
    const bucket = state.buckets.get(minute);
    if (bucket !== undefined && bucket.peakSecondCount > count) {
      count = bucket.peakSecondCount;
      at = bucket.peakSecondStart;
    }
  }
  return { count, at };
}

function timeWindow(state: MetricsState, minutes: number): TimeWindowStats {
  const range = windowRange(state, minutes);
  let events = 0;
  let errors = 0;
  let latencySum = 0;
  for (let minute = range.from; minute <= range.to; minute++) {
    const bucket = state.buckets.get(minute);
    if (bucket === undefined) continue;
    events += bucket.events;
    errors += bucket.errors;
    latencySum += bucket.latencySum;
  }
  return { events, avgLatency: average(latencySum, events), errorRate: rate(errors, events) };
}

/** Minutes `from`..`to`, both included, clipped to the 24 h; empty when to < from. */
interface MinuteRange {
  readonly from: number;
  readonly to: number;
}

/** The last `windowMinutes`: the current, partial minute plus the N-1 before it (N in 1..1440). */
function windowRange(state: MetricsState, windowMinutes: number): MinuteRange {
  const to = state.currentMinute;
  return { from: Math.max(state.oldestMinute, to - clampWindow(windowMinutes) + 1), to };
}

/**
 * Exact while no user seen in the range was forgotten past the tracked-user cap; otherwise the
 * HyperLogLog estimate of the range.
 */
function uniqueUsersOver(state: MetricsState, range: MinuteRange): number {
  if (range.to < range.from) return 0;
  const exact = state.users.exactSince(range.from, range.to);
  return exact ?? state.userSketches.estimate(range.from, range.to, state.currentMinute);
}
