/**
 * @module An aggregator's parts to and from a checkpoint's plain form (object-graph.ts): the
 * registry of the classes its state is made of. A class added to the state must be listed here,
 * or a restore refuses the checkpoint naming it (and the actor rebuilds from stored events).
 */
import type { Aggregator, AggregatorParts } from '../aggregator.ts';
import type { MetricsLimits } from '../metrics-limits.ts';
import { CarriedFills } from '../state/cap-usage.ts';
import { ExpiredCounts } from '../state/expired-counts.ts';
import { HyperLogLog } from '../state/hyperloglog.ts';
import { KeyRegistry } from '../state/key-registry.ts';
import { LastEventTimes } from '../state/last-event-times.ts';
import { LatencyHistograms, newHistogram } from '../state/latency-histograms.ts';
import { LatencyWindow } from '../state/latency-window.ts';
import { MetricsState, UserSketches } from '../state/metrics-state.ts';
import { MinuteBucket, MinuteBuckets } from '../state/minute-buckets.ts';
import { MinuteSeries } from '../state/minute-series.ts';
import { PastWindows } from '../state/past-windows.ts';
import { RetentionTotals } from '../state/retention-totals.ts';
import { SecondRing } from '../state/second-ring.ts';
import { UserTracker } from '../state/top-users.ts';
import { fromPlain, toPlain, type Restorers } from './object-graph.ts';

const CLASSES = [
  CarriedFills,
  ExpiredCounts,
  HyperLogLog,
  KeyRegistry,
  LastEventTimes,
  LatencyHistograms,
  LatencyWindow,
  MetricsState,
  UserSketches,
  MinuteBucket,
  MinuteBuckets,
  MinuteSeries,
  PastWindows,
  RetentionTotals,
  SecondRing,
  UserTracker,
];

const RESTORERS: Restorers = {
  classes: new Map(CLASSES.map((c) => [c.name, c.prototype as object])),
  histogram: newHistogram,
};

/** The aggregator's state as plain data (shares nothing live: safe to serialise later). */
export const aggregatorToPlain = (aggregator: Aggregator): unknown =>
  toPlain(aggregator.checkpointParts());

/**
 * Restores `plain` into `aggregator` (made with `limits`, which must be the checkpoint's): the
 * fresh state's own objects are filled, so that what their constructors set (the series' merge
 * functions) is kept. Throws on a plain form this version does not know.
 */
export function restoreAggregator(
  aggregator: Aggregator,
  plain: unknown,
  limits: MetricsLimits,
): void {
  const fresh: AggregatorParts = {
    state: new MetricsState(limits, 0),
    lastEvents: new LastEventTimes(limits, 0),
    fills: new CarriedFills(),
  };
  const parts = fromPlain(plain, fresh, RESTORERS) as AggregatorParts;
  if (!(parts.state instanceof MetricsState) || !(parts.lastEvents instanceof LastEventTimes))
    throw new Error('checkpoint holds no metrics state');
  aggregator.restoreParts(parts);
}

export const sameLimits = (a: MetricsLimits, b: MetricsLimits): boolean =>
  a.maxEventTypes === b.maxEventTypes &&
  a.maxSources === b.maxSources &&
  a.maxTrackedUsers === b.maxTrackedUsers;
