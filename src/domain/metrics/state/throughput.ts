/**
 * @module Throughput numbers from the per-second ring (DESIGN 4): current (last 5 full seconds),
 * avg (last hour, or since start / reset if shorter) and trend (last minute vs the 5 before).
 */
import {
  AVERAGE_THROUGHPUT_SECONDS,
  CURRENT_THROUGHPUT_SECONDS,
  TREND_BASELINE_SECONDS,
  TREND_RECENT_SECONDS,
  TREND_TOLERANCE,
} from '../metrics-limits.ts';
import type { SecondRing } from './second-ring.ts';
import { SECOND_MS, secondOf } from '../time.ts';

export type Trend = 'increasing' | 'decreasing' | 'stable';

/** Events of the last 5 full seconds (the current, partial second excluded) / 5. */
export function currentThroughput(ring: SecondRing, now: number): number {
  const second = secondOf(now);
  return ring.sum(second - CURRENT_THROUGHPUT_SECONDS, second - 1) / CURRENT_THROUGHPUT_SECONDS;
}

/**
 * Events of the last 3600 seconds (the current one included) / 3600, or, when start / reset was less
 * than an hour ago, events since then / seconds since then (at least 1 s).
 */
export function averageThroughput(ring: SecondRing, now: number, since: number): number {
  const second = secondOf(now);
  const events = ring.sum(second - AVERAGE_THROUGHPUT_SECONDS + 1, second);
  const span = Math.min(AVERAGE_THROUGHPUT_SECONDS, Math.max(1, (now - since) / SECOND_MS));
  return events / span;
}

/**
 * The rate of the last 60 full seconds against that of the 300 seconds before them: more than 10 %
 * higher is increasing, more than 10 % lower decreasing, else stable (so events after an idle
 * baseline are increasing, and no events at all stable).
 */
export function throughputTrend(ring: SecondRing, now: number): Trend {
  const second = secondOf(now);
  const recentEnd = second - 1;
  const recentStart = second - TREND_RECENT_SECONDS;
  const recent = ring.sum(recentStart, recentEnd) / TREND_RECENT_SECONDS;
  const baseline =
    ring.sum(recentStart - TREND_BASELINE_SECONDS, recentStart - 1) / TREND_BASELINE_SECONDS;
  if (recent > baseline * (1 + TREND_TOLERANCE)) return 'increasing';
  if (recent < baseline * (1 - TREND_TOLERANCE)) return 'decreasing';
  return 'stable';
}
