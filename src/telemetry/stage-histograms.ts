/**
 * @module Latency per stage of a pipeline, kept by the thread that records it: one bounded
 * hdr histogram per stage, in microseconds, read as p50/p99/max in milliseconds. Times taken on
 * different threads are compared as epoch milliseconds (epochNow), never as performance.now():
 * each thread's performance.now() counts from its own start.
 */
import { build, type Histogram } from 'hdr-histogram-js';

/** The highest duration kept, in µs (60 s); a longer one is recorded as 60 s. */
const HIGHEST_US = 60_000_000;

/** Epoch ms with sub-millisecond resolution, comparable across the threads of one process. */
export const epochNow = (): number => performance.timeOrigin + performance.now();

export interface StageSummary {
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface StageHistograms<S extends string> {
  /** A duration in ms; below 0 (two threads' clocks a few µs apart) counts as 0. */
  record(stage: S, ms: number): void;
  summary(): Readonly<Record<S, StageSummary>>;
  reset(): void;
}

/** A percentile reads as its bucket's top, which may lie past the largest value: capped there. */
function summaryOf(histogram: Histogram): StageSummary {
  if (histogram.totalCount === 0) return { count: 0, p50Ms: 0, p99Ms: 0, maxMs: 0 };
  const max = histogram.maxValue;
  const at = (percentile: number): number =>
    Math.min(histogram.getValueAtPercentile(percentile), max) / 1000;
  return { count: histogram.totalCount, p50Ms: at(50), p99Ms: at(99), maxMs: max / 1000 };
}

export function createStageHistograms<S extends string>(stages: readonly S[]): StageHistograms<S> {
  // Fixed size (no auto-resize): memory does not grow with the values recorded.
  const histograms = new Map<S, Histogram>(
    stages.map((stage) => [
      stage,
      build({
        lowestDiscernibleValue: 1,
        highestTrackableValue: HIGHEST_US,
        numberOfSignificantValueDigits: 3,
      }),
    ]),
  );
  const of = (stage: S): Histogram => histograms.get(stage) as Histogram;
  return {
    record(stage, ms) {
      const us = Math.round(ms * 1000);
      of(stage).recordValue(us < 0 ? 0 : us > HIGHEST_US ? HIGHEST_US : us);
    },
    summary: () =>
      Object.fromEntries(stages.map((stage) => [stage, summaryOf(of(stage))])) as Record<
        S,
        StageSummary
      >,
    reset: () => {
      for (const histogram of histograms.values()) histogram.reset();
    },
  };
}
