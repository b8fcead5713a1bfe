/**
 * @module The hot path: folds a batch of stored events into the metrics state. O(1) amortised per
 * event, no allocation per event (beyond a new key's or user's first entry).
 */
import type { MetricEvent, Severity } from '../../event.ts';
import { LatencyWindow } from './latency-window.ts';
import type { MetricsState } from './metrics-state.ts';
import { hashString } from './hyperloglog.ts';
import { MINUTE_MS, SECOND_MS } from '../time.ts';

export const SEVERITY_INDEX: Readonly<Record<Severity, number>> = {
  INFO: 0,
  WARNING: 1,
  ERROR: 2,
  CRITICAL: 3,
};
const FIRST_ERROR_INDEX = SEVERITY_INDEX.ERROR;

/**
 * Counts each event in the minute and second of its `receivedAt`. A `receivedAt` after `now` counts
 * as `now`; one before the 24 h (or negative) is not counted. The caller advanced `state` to `now`.
 */
export function recordEvents(
  state: MetricsState,
  events: readonly MetricEvent[],
  now: number,
): void {
  const oldestMs = state.oldestMinute * MINUTE_MS;
  const { types, sources, totals, seconds, buckets, histograms, users, userSketches } = state;
  const typeLimit = types.idLimit;
  const sourceLimit = sources.idLimit;
  for (const event of events) {
    const at = event.receivedAt > now ? now : event.receivedAt;
    if (!(at >= oldestMs)) continue; // also skips NaN
    const second = Math.floor(at / SECOND_MS);
    const minute = Math.floor(at / MINUTE_MS);
    const typeId = types.idOf(event.eventType);
    const sourceId = sources.idOf(event.source);
    const severity = SEVERITY_INDEX[event.severity];
    const isError = severity >= FIRST_ERROR_INDEX;
    const latency = event.latencyMs >= 0 ? event.latencyMs : 0; // also maps NaN to 0

    const bucket = buckets.open(minute);
    bucket.add(typeId, sourceId, severity, isError, latency, typeLimit, sourceLimit);
    totals.add(typeId, sourceId, severity, isError, latency, typeLimit, sourceLimit);
    const inSecond = seconds.add(second);
    if (inSecond > bucket.peakSecondCount) {
      bucket.peakSecondCount = inSecond;
      bucket.peakSecondStart = second * SECOND_MS;
    }
    state.severitiesSeen[severity] = true;

    histograms.record(minute, latency);
    state.overallLatency.add(latency, minute);
    (state.typeLatency[typeId] ??= new LatencyWindow()).add(latency, minute);
    (state.sourceLatency[sourceId] ??= new LatencyWindow()).add(latency, minute);

    if (typeof event.userId === 'string') {
      users.record(event.userId, at, minute);
      userSketches.add(minute, hashString(event.userId));
    }
  }
  histograms.flush();
}
