/**
 * @module The overview's data, kept for as long as the tab is signed in (views come and go): the
 * per-minute history of the day fetched once, then one point per /topic/metrics push, in one
 * fixed-size Ring, and the latest snapshot. Listeners hear of each change. A quiet minute of the
 * history holds NaN (drawn as a gap): its latency and error rate are unknown, not 0; a minute
 * missing from the history is a gap too.
 */
import type { Api } from './api.ts';
import type { Live } from './live.ts';
import { Ring } from './ring.ts';
import type { MetricsHistory, MetricsSnapshot } from '../../domain/metrics/snapshot/snapshot.ts';

/** Columns of the ring. */
export const COLUMN = {
  time: 0,
  eventsPerSecond: 1,
  errorRate: 2,
  p50: 3,
  p95: 4,
  p99: 5,
} as const;
const COLUMNS = 6;
const GAP = Array.from({ length: COLUMNS - 1 }, () => Number.NaN);
/** One hour of 1-second pushes plus a day of minutes: bounded whatever the session's length. */
const CAPACITY = 3600 + 1440;
/** The 24 h the metrics actor keeps (the overview's longest range). */
export const HISTORY_MINUTES = 1440;
const MINUTE_S = 60;

/** Latency and error rate of a history minute without events: unknown, a gap on the chart. */
const orGap = (value: number, eventsPerSecond: number): number =>
  eventsPerSecond === 0 ? Number.NaN : value;

export interface MetricsStore {
  readonly ring: Ring;
  latest(): MetricsSnapshot | null;
  /** Called after each change; returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
  stop(): void;
}

export function createMetricsStore(api: Api, live: Live): MetricsStore {
  const ring = new Ring(CAPACITY, COLUMNS);
  let latest: MetricsSnapshot | null = null;
  const listeners = new Set<() => void>();
  const changed = (): void => listeners.forEach((listener) => listener());
  // Pushes that arrive while the history loads wait, so the ring stays in time order.
  let waiting: [MetricsSnapshot, number][] | null = [];
  const add = (snapshot: MetricsSnapshot, at: number): void => {
    const overall = snapshot.latencyMetrics.overall;
    // A push's latency and error rate are over windows longer than its 5-second rate: kept as they are.
    ring.push([
      at / 1000,
      snapshot.throughput.current,
      snapshot.timeWindows.last5Minutes.errorRate,
      overall.p50,
      overall.p95,
      overall.p99,
    ]);
  };
  const stopLive = live.onMetrics((snapshot, at) => {
    latest = snapshot;
    if (waiting !== null) waiting.push([snapshot, at]);
    else add(snapshot, at);
    changed();
  });
  const flush = (): void => {
    for (const [snapshot, at] of waiting ?? []) add(snapshot, at);
    waiting = null;
    changed();
  };
  api.get<MetricsHistory>(`/api/v1/metrics/history?minutes=${HISTORY_MINUTES}`).then((history) => {
    // The last point is the current minute so far; the pushes continue from it.
    let previous = Number.NaN;
    for (const p of history.points) {
      const t = p.t / 1000;
      // A minute missing between two points: one point of NaN breaks the line there.
      if (t - previous > 1.5 * MINUTE_S) ring.push([previous + MINUTE_S, ...GAP]);
      previous = t;
      const rate = p.eventsPerSecond;
      ring.push([
        t,
        rate,
        orGap(p.errorRate, rate),
        orGap(p.p50, rate),
        orGap(p.p95, rate),
        orGap(p.p99, rate),
      ]);
    }
    flush();
  }, flush);
  return {
    ring,
    latest: () => latest,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stop: () => {
      stopLive();
      listeners.clear();
    },
  };
}
