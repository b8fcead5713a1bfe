/**
 * @module The metrics snapshot of spec 2.10 (GET /api/v1/metrics, the /topic/metrics broadcast) and
 * the per-minute history (GET /api/v1/metrics/history):
 * plain data, field names exactly as the spec. Maps are null-prototype objects (any key is safe).
 */
import type { ClusterView } from '../../cluster/cluster-view.ts';
import type { Severity } from '../../event.ts';
import type { Trend } from '../state/throughput.ts';
import type { MetricsCapsUsage } from '../state/cap-usage.ts';

export type { Trend } from '../state/throughput.ts';

export interface MetricsSummary {
  readonly totalEvents: number;
  /** = throughput.current. */
  readonly eventsPerSecond: number;
  readonly avgLatency: number;
  readonly errorRate: number;
  readonly uniqueUsers: number;
  readonly uniqueSources: number;
  readonly uniqueEventTypes: number;
}

/** Per type and per source. */
export interface LatencyStats {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly avg: number;
}

export interface OverallLatencyStats extends LatencyStats {
  readonly min: number;
  readonly max: number;
  readonly sampleCount: number;
}

export interface LatencyMetrics {
  readonly overall: OverallLatencyStats;
  readonly byType: Readonly<Record<string, LatencyStats>>;
  readonly bySource: Readonly<Record<string, LatencyStats>>;
}

export interface ErrorMetrics {
  readonly totalErrors: number;
  readonly errorRate: number;
  readonly errorsByType: Readonly<Record<string, number>>;
  readonly errorsBySource: Readonly<Record<string, number>>;
}

export interface Throughput {
  readonly current: number;
  readonly peak: number;
  /** ISO 8601; the time of start / reset while there is no peak. */
  readonly peakTimestamp: string;
  readonly avg: number;
  readonly trend: Trend;
}

export interface TimeWindowStats {
  readonly events: number;
  readonly avgLatency: number;
  readonly errorRate: number;
}

export interface TimeWindows {
  readonly last5Minutes: TimeWindowStats;
  readonly last15Minutes: TimeWindowStats;
  readonly last1Hour: TimeWindowStats;
}

export interface TopUser {
  readonly userId: string;
  readonly eventCount: number;
  /** ISO 8601. */
  readonly lastSeen: string;
}

export interface MetricsSnapshot {
  readonly summary: MetricsSummary;
  readonly eventsByType: Readonly<Record<string, number>>;
  readonly eventsBySource: Readonly<Record<string, number>>;
  readonly eventsBySeverity: Readonly<Record<Severity, number>>;
  readonly latencyMetrics: LatencyMetrics;
  readonly errorMetrics: ErrorMetrics;
  readonly throughput: Throughput;
  readonly timeWindows: TimeWindows;
  readonly topUsers: readonly TopUser[];
  /**
   * Not in spec 2.10 (an added field): how full each cap is, and whether keys now count under
   * `(other)` (types, sources) or uniqueUsers is an estimate (users). docs/metrics.md "Caps".
   */
  readonly limits: MetricsCapsUsage;
  /** Cluster mode only (NATS_URL set): whose batches these figures count, and if all of them. */
  readonly cluster?: ClusterView;
  /** Not in spec 2.10: how this actor's metrics were restored when it started (issue 33). */
  readonly restoredFrom?: RestoredFrom;
}

/**
 * The metrics actor's start: the checkpoint it loaded (null: none could be used, see `rebuilt`)
 * and how many stored events it replayed after that checkpoint's mark before its first snapshot.
 */
export interface RestoredFrom {
  /** When the checkpoint was taken (ISO 8601); null when none was loaded. */
  readonly checkpointAt: string | null;
  readonly replayedEvents: number;
  /** When this actor finished its restore and published its first snapshot (ISO 8601). */
  readonly restoredAt: string;
  /** How long the restore took, ms: loading, decoding, and replaying the events after the mark. */
  readonly restoreMs: number;
  /**
   * Why no checkpoint was used (missing, corrupt, another format or other caps): the counts were
   * rebuilt from the stored events of the last `rebuiltMinutes`. Absent when one was used. In a
   * cluster `rebuiltMinutes` is 0: the batch stream, read again from its start, counts instead.
   */
  readonly rebuilt?: { readonly reason: string; readonly rebuiltMinutes: number };
}

/** One minute; the last point is the current, partial minute. */
export interface HistoryPoint {
  /** The minute's start, epoch ms. */
  readonly t: number;
  readonly events: number;
  readonly errors: number;
  /** Events per second over the minute (over its elapsed part for the current minute). */
  readonly eventsPerSecond: number;
  /** Percent of the minute's events that were errors (0 when none). */
  readonly errorRate: number;
  /** Latency percentiles of the minute's events, ms (0 when none). */
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
}

export interface MetricsHistory {
  /** The minutes asked for, oldest first; minutes before start / reset are absent. */
  readonly points: readonly HistoryPoint[];
}
