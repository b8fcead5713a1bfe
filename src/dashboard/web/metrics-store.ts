/**
 * @module The overview's data, kept for as long as the tab is signed in (views come and go): the
 * per-minute history fetched once, then one point per /topic/metrics push, in one fixed-size Ring,
 * and the latest snapshot. Listeners hear of each change.
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
/** One hour of 1-second pushes plus a day of minutes: bounded whatever the session's length. */
const CAPACITY = 3600 + 1440;
export const HISTORY_MINUTES = 60;

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
    for (const p of history.points)
      ring.push([p.t / 1000, p.eventsPerSecond, p.errorRate, p.p50, p.p95, p.p99]);
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
