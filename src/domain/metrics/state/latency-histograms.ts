/**
 * @module Per-minute latency histograms (hdr-histogram-js) over the 24 h, for windowed latency
 * percentiles in rules: a window's percentile is read from the merge of its minutes' histograms.
 */
import { build, encodeIntoCompressedBase64, type Histogram } from 'hdr-histogram-js';
import { HISTOGRAM_MAX_LATENCY_MS, HISTOGRAM_SIGNIFICANT_DIGITS } from '../metrics-limits.ts';
import { MinuteSeries } from './minute-series.ts';

/** Latencies below this are pre-counted per batch (exact in the histogram: below 256 ms, ±1 % above). */
const PENDING_VALUES = 4096;

// One fixed layout for every histogram, so that add() takes hdr's same-layout fast path.
export const newHistogram = (): Histogram =>
  build({
    bitBucketSize: 32,
    autoResize: false,
    lowestDiscernibleValue: 1,
    highestTrackableValue: HISTOGRAM_MAX_LATENCY_MS,
    numberOfSignificantValueDigits: HISTOGRAM_SIGNIFICANT_DIGITS,
  });

/**
 * The compressed encodings of histograms, for the metrics checkpoint (issue 33): each of its 1440
 * minutes is written every 10 s, and hdr's encoding deflates each one (about 0.1 ms), so a day of
 * 7 types cost 130 to 320 ms of the actor thread per checkpoint. A closed minute never changes
 * again: its encoding is kept while its count stays the same. Counts only grow between two
 * clears (each record adds to totalCount), and a clear forgets the encoding.
 */
const encodings = new WeakMap<Histogram, { readonly count: number; readonly text: string }>();

/** `histogram`'s compressed base64 encoding; '' when empty (nothing to decode on restore). */
export function encodedHistogram(histogram: Histogram): string {
  const count = histogram.totalCount;
  const kept = encodings.get(histogram);
  if (kept !== undefined && kept.count === count) return kept.text;
  const text = count === 0 ? '' : encodeIntoCompressedBase64(histogram);
  encodings.set(histogram, { count, text });
  return text;
}

export class LatencyHistograms {
  private readonly series = new MinuteSeries<Histogram>({
    create: newHistogram,
    clear: (histogram) => {
      histogram.reset();
      encodings.delete(histogram);
    },
    merge: (target, source) => {
      if (source.totalCount > 0) target.add(source);
    },
  });
  // hdr's recordValue costs ~100 ns; whole-ms latencies repeat, so a batch's small values are
  // counted here first and handed to the minute's histogram once per distinct value (flush).
  private pendingMinute = -1;
  private readonly pending = new Uint32Array(PENDING_VALUES);
  private readonly touched = new Uint32Array(PENDING_VALUES);
  private touchedCount = 0;

  /** Hot path: one latency (whole ms, clamped to the histogram's range) received in `minute`. */
  record(minute: number, latencyMs: number): void {
    const value = Math.min(Math.round(latencyMs), HISTOGRAM_MAX_LATENCY_MS);
    if (value >= PENDING_VALUES) {
      this.series.at(minute).recordValue(value);
      return;
    }
    if (minute !== this.pendingMinute) {
      this.flush();
      this.pendingMinute = minute;
    }
    if (this.pending[value]!++ === 0) this.touched[this.touchedCount++] = value;
  }

  /** Hands the pending counts to their minute's histogram (end of a batch, before any read). */
  flush(): void {
    if (this.touchedCount === 0) return;
    const histogram = this.series.at(this.pendingMinute);
    for (let i = 0; i < this.touchedCount; i++) {
      const value = this.touched[i]!;
      histogram.recordValueWithCount(value, this.pending[value]!);
      this.pending[value] = 0;
    }
    this.touchedCount = 0;
  }

  /** An empty merge for mergeInto (every histogram here has the same layout). */
  createMerge(): Histogram {
    return newHistogram();
  }

  /** Adds the latencies received in minutes `from`..`to` (inside the 24 h) to `merge`. */
  mergeInto(merge: Histogram, from: number, to: number, currentMinute: number): void {
    this.flush();
    this.series.mergeRange(merge, from, to, currentMinute);
  }
}

/**
 * Nearest-rank `percentile` of a merge: hdr's getValueAtPercentile takes rank ceil(p/100 · n); values
 * above 255 ms are the top of their 1 % bucket. 0 when the merge is empty.
 */
export const percentileOf = (merge: Histogram, percentile: number): number =>
  merge.totalCount === 0 ? 0 : merge.getValueAtPercentile(percentile);
