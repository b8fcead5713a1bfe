/**
 * @module The aggregator as the replayed evaluator reads it: the values of one tick are reused by
 * the next ones while nothing they depend on changed. A window's value depends only on the
 * recorded events and the current minute, except the few metrics that read the clock itself
 * (a live rate's elapsed seconds, the 5-second throughput, a producer's silence): with those the
 * values are computed every tick. So every tick of the live period (RULE_EVALUATION_MS) is
 * evaluated, as live, and a quiet week costs a lifecycle step per tick, not a window pass.
 */
import type { Aggregator } from '../../metrics/aggregator.ts';
import { parseMetricName } from '../../metrics/windows/metric-names.ts';
import type {
  SlotValues,
  WindowReads,
  WindowedMetrics,
} from '../../metrics/windows/window-reads.ts';
import type { IndexedMetric } from '../../metrics/windows/metric-names.ts';
import { MINUTE_MS } from '../../metrics/time.ts';
import type { BucketRead, BucketedMetrics } from '../../metrics/windows/bucket-read.ts';

const CLOCK_METRICS: ReadonlySet<string> = new Set(['eventsPerSecond', 'currentThroughput']);

/** Does a metric's value change with the clock alone (no event, same minute)? */
export function readsTheClock(metric: string): boolean {
  const ref = parseMetricName(metric);
  if (ref === null) return false;
  return ref.kind === 'silence' || (ref.kind === 'scalar' && CLOCK_METRICS.has(ref.name));
}

export class ReplayMetrics implements WindowedMetrics, BucketedMetrics {
  private last: SlotValues | undefined;
  private lastReads: WindowReads | undefined;
  private lastMinute = Number.NaN;

  constructor(
    private readonly aggregator: Aggregator,
    private readonly clock: () => number,
    /** The rule reads a metric that changes with the clock alone: never reuse. */
    private readonly clockBound: boolean,
  ) {}

  /** Events were recorded: the next read computes afresh. */
  changed(): void {
    this.last = undefined;
  }

  valuesOf(reads: WindowReads): SlotValues {
    const minute = Math.floor(this.clock() / MINUTE_MS);
    const reuse =
      !this.clockBound &&
      this.last !== undefined &&
      this.lastReads === reads &&
      minute === this.lastMinute;
    if (reuse) return this.last as SlotValues;
    this.last = this.aggregator.valuesOf(reads);
    this.lastReads = reads;
    this.lastMinute = minute;
    return this.last;
  }

  /** ANOMALY's completed buckets, from the rebuilt metrics (read once per bucket, no reuse). */
  bucketValue(read: BucketRead, fromMinute: number, toMinute: number): number | null {
    return this.aggregator.bucketValue(read, fromMinute, toMinute);
  }

  hasKey(map: IndexedMetric, key: string): boolean {
    return this.aggregator.hasKey(map, key);
  }
}
