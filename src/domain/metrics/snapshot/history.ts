/**
 * @module Per-minute history of the headline metrics over the last N minutes (GET
 * /api/v1/metrics/history): read from the minute buckets and per-minute latency histograms the
 * state already keeps for the 24 h, so a dashboard that reloads draws its charts at once.
 */
import type { MetricsState } from '../state/metrics-state.ts';
import type { HistoryPoint, MetricsHistory } from './snapshot.ts';
import { percentileOf } from '../state/latency-histograms.ts';
import { RETENTION_MINUTES } from '../metrics-limits.ts';
import { MINUTE_MS, SECOND_MS, minuteOf } from '../time.ts';

export const MAX_HISTORY_MINUTES = RETENTION_MINUTES;

export function buildHistory(state: MetricsState, now: number, minutes: number): MetricsHistory {
  const current = minuteOf(now);
  const first = Math.max(current - minutes + 1, state.oldestMinute, minuteOf(state.since));
  const merge = state.histograms.createMerge();
  const points: HistoryPoint[] = [];
  for (let minute = first; minute <= current; minute++) {
    const bucket = state.buckets.get(minute);
    const events = bucket?.events ?? 0;
    const errors = bucket?.errors ?? 0;
    const start = minute * MINUTE_MS;
    // The first and the current minute may be partial: their rate is over the part that counted.
    const from = Math.max(start, state.since);
    const to = Math.min(start + MINUTE_MS, now);
    const seconds = Math.max(1, (to - from) / SECOND_MS);
    let p50 = 0;
    let p95 = 0;
    let p99 = 0;
    if (events > 0) {
      merge.reset();
      state.histograms.mergeInto(merge, minute, minute, current);
      p50 = percentileOf(merge, 50);
      p95 = percentileOf(merge, 95);
      p99 = percentileOf(merge, 99);
    }
    points.push({
      t: start,
      events,
      errors,
      eventsPerSecond: events / seconds,
      errorRate: events === 0 ? 0 : (100 * errors) / events,
      p50,
      p95,
      p99,
    });
  }
  return { points };
}
