/**
 * @module The metrics aggregator owned by the metrics actor thread: records stored events, answers
 * the spec 2.10 snapshot and the windowed values rules read (WindowedMetrics). Pure, clock injected.
 */
import { SEVERITIES, type MetricEvent } from '../event.ts';
import { buildSnapshot } from './snapshot/build-snapshot.ts';
import type { IndexedMetric, MetricRef } from './windows/metric-names.ts';
import { DEFAULT_METRICS_LIMITS, type MetricsLimits } from './metrics-limits.ts';
import { LastEventTimes, type NewestEvents, type WatchedKeys } from './state/last-event-times.ts';
import { CarriedFills, type MetricsCapsUsage } from './state/cap-usage.ts';
import { MetricsState } from './state/metrics-state.ts';
import { recordEvents } from './state/record-events.ts';
import type { MetricsHistory, MetricsSnapshot } from './snapshot/snapshot.ts';
import { buildHistory } from './snapshot/history.ts';
import { countsSinceStart, type CountsSinceStart } from './snapshot/counts-since-start.ts';
import { WindowReads, type SlotValues, type WindowedMetrics } from './windows/window-reads.ts';

const NOTHING_WATCHED: WatchedKeys = { types: new Set(), sources: new Set() };
import type { BucketRead, BucketedMetrics } from './windows/bucket-read.ts';
import { bucketValueOf } from './windows/bucket-values.ts';
import type { Histogram } from 'hdr-histogram-js';
import { WindowTable } from './windows/window-table.ts';

/** Everything an aggregator counts, as a checkpoint saves and restores it. */
export interface AggregatorParts {
  readonly state: MetricsState;
  readonly lastEvents: LastEventTimes;
  readonly fills: CarriedFills;
}

export interface AggregatorOptions extends Partial<MetricsLimits> {
  /** Epoch ms; read once per call. Defaults to Date.now. */
  readonly now?: () => number;
}

export class Aggregator implements WindowedMetrics, BucketedMetrics {
  readonly limits: MetricsLimits;
  private readonly now: () => number;
  private state: MetricsState;
  /** Not part of `state`: a reset leaves it (last-event-times.ts). */
  private lastEvents: LastEventTimes;
  /** The keys the rules name; kept across a reset (a new state watches them too). */
  private watched = NOTHING_WATCHED;
  private fills = new CarriedFills();
  /** Scratch merge of ANOMALY latency buckets, made on first use. */
  private latencyMerge: Histogram | undefined;

  constructor(options: AggregatorOptions = {}) {
    this.limits = Object.freeze({
      maxEventTypes: positiveInteger(
        'maxEventTypes',
        options.maxEventTypes,
        DEFAULT_METRICS_LIMITS.maxEventTypes,
      ),
      maxSources: positiveInteger(
        'maxSources',
        options.maxSources,
        DEFAULT_METRICS_LIMITS.maxSources,
      ),
      maxTrackedUsers: positiveInteger(
        'maxTrackedUsers',
        options.maxTrackedUsers,
        DEFAULT_METRICS_LIMITS.maxTrackedUsers,
      ),
    });
    this.now = options.now ?? Date.now;
    this.state = new MetricsState(this.limits, this.now());
    this.lastEvents = new LastEventTimes(this.limits, this.state.since);
  }

  /** Hot path: a batch of stored events (any size; one clock read per batch). */
  record(events: readonly MetricEvent[]): void {
    if (events.length === 0) return;
    const now = this.tick();
    recordEvents(this.state, events, now);
    this.lastEvents.record(events, now);
  }

  /**
   * The newest stored events per key, read from storage after a (re)start; times only move
   * forward, so events recorded before this arrives are not undone.
   */
  seedLastEvents(newest: NewestEvents): void {
    this.lastEvents.seed(newest);
  }

  /**
   * The types and sources the rule set names (rules/watched-keys.ts): counted by name whatever
   * the caps from now on, and their producer-silent times kept. Counts not back-filled: what such
   * a key counted under `(other)` before stays there (docs/metrics.md "Caps").
   */
  watch(keys: WatchedKeys): void {
    this.watched = keys;
    this.state.types.watch(keys.types);
    this.state.sources.watch(keys.sources);
    this.lastEvents.watch(keys);
  }

  snapshot(): MetricsSnapshot {
    const now = this.tick();
    return buildSnapshot(this.state, now, this.fills.usage(this.state));
  }

  /** How full each cap is, and the fills since start (a reset does not zero them). */
  capsUsage(): MetricsCapsUsage {
    this.tick();
    return this.fills.usage(this.state);
  }

  /** The last `minutes` (1..1440) minute by minute, the current one last. */
  history(minutes: number): MetricsHistory {
    const now = this.tick();
    return buildHistory(this.state, now, minutes);
  }

  /** Events by type, source and severity since start or reset (GET /metrics' counters). */
  countsSinceStart(): CountsSinceStart {
    this.tick();
    return countsSinceStart(this.state);
  }

  /** Zeroes everything, peak included; the no-data peakTimestamp becomes this moment. */
  reset(): void {
    this.fills.carry(this.state);
    this.state = new MetricsState(this.limits, this.now());
    this.state.types.watch(this.watched.types);
    this.state.sources.watch(this.watched.sources);
  }

  /** What a checkpoint saves (checkpoint/aggregator-checkpoint.ts), pending latencies flushed. */
  checkpointParts(): AggregatorParts {
    this.state.histograms.flush();
    return { state: this.state, lastEvents: this.lastEvents, fills: this.fills };
  }

  /** Takes the parts a checkpoint restored, then moves them forward to now. */
  restoreParts(parts: AggregatorParts): void {
    this.state = parts.state;
    this.lastEvents = parts.lastEvents;
    this.fills = parts.fills;
    // Watched keys stay as saved until the rules are set again (set-rules calls watch()).
    this.tick();
  }

  /** Epoch ms of the start or reset that the counts run from. */
  get since(): number {
    return this.state.since;
  }

  valuesOf(reads: WindowReads): SlotValues {
    const now = this.tick();
    return new WindowTable(this.state, now, reads, this.lastEvents);
  }

  /** `ref` over the last `windowMinutes`: one value (many at one moment: valuesOf). */
  value(ref: MetricRef, windowMinutes: number): number {
    return this.valueAt(ref, windowMinutes, false);
  }

  /** `ref` over the `windowMinutes` before the last `windowMinutes` (RATE_CHANGE's baseline). */
  previousValue(ref: MetricRef, windowMinutes: number): number {
    return this.valueAt(ref, windowMinutes, true);
  }

  /** ANOMALY: `read` over whole minutes (bucket-values.ts). */
  bucketValue(read: BucketRead, fromMinute: number, toMinute: number): number | null {
    this.tick();
    return bucketValueOf(this.state, read, fromMinute, toMinute, () => {
      this.latencyMerge ??= this.state.histograms.createMerge();
      return this.latencyMerge;
    });
  }

  hasKey(map: IndexedMetric, key: string): boolean {
    switch (map) {
      case 'eventsByType':
        return this.state.types.hasSeen(key);
      case 'eventsBySource':
        return this.state.sources.hasSeen(key);
      case 'eventsBySeverity': {
        const index = (SEVERITIES as readonly string[]).indexOf(key);
        return index >= 0 && this.state.severitiesSeen[index] === true;
      }
    }
  }

  private valueAt(ref: MetricRef, windowMinutes: number, previous: boolean): number {
    const reads = new WindowReads();
    const slot = reads.slot(ref, windowMinutes, previous);
    return this.valuesOf(reads).get(slot);
  }

  /** Reads the clock once and moves the 24 h forward to it. */
  private tick(): number {
    const now = this.now();
    this.state.advance(now);
    return now;
  }
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(
      `Aggregator option ${name} must be a positive integer, got ${String(value)}`,
    );
  }
  return value;
}
