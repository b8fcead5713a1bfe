/**
 * @module What an ANOMALY series reads of the live metrics: one measure over one bucket of whole
 * minutes, optionally of one event type or source. Declared here (the metrics answer it) and used
 * by the rules' ANOMALY baselines.
 */

/** Events, % of ERROR / CRITICAL, a latency percentile, distinct users: per bucket. */
export const BUCKET_MEASURES = [
  'eventRate',
  'errorRate',
  'latencyP50',
  'latencyP95',
  'latencyP99',
  'uniqueUsers',
] as const;
export type BucketMeasure = (typeof BUCKET_MEASURES)[number];

export interface BucketRead {
  readonly metric: BucketMeasure;
  /** Only events of this type / of this source (eventRate and errorRate; never both). */
  readonly eventType?: string;
  readonly source?: string;
}

/** What answers bucket reads (the aggregator over its 24 h; a backtest over stored events). */
export interface BucketedMetrics {
  /**
   * `read` over the minutes `fromMinute` (inclusive) to `toMinute` (exclusive), epoch minutes;
   * null when the metrics do not hold all of them (before their start or the 24 h).
   */
  bucketValue(read: BucketRead, fromMinute: number, toMinute: number): number | null;
}
