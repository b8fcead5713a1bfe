/**
 * @module The last LATENCY_SAMPLES latency measurements of one scope (overall, a type, a source),
 * with nearest-rank p50 / p95 / p99, avg, min and max, recomputed only after the window changed.
 */
import { LATENCY_SAMPLES } from '../metrics-limits.ts';

export interface LatencyWindowStats {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly avg: number;
  readonly min: number;
  readonly max: number;
  readonly sampleCount: number;
}

const EMPTY_STATS: LatencyWindowStats = Object.freeze({
  p50: 0,
  p95: 0,
  p99: 0,
  avg: 0,
  min: 0,
  max: 0,
  sampleCount: 0,
});

const INITIAL_CAPACITY = 16;

/**
 * 0-based position of the nearest-rank `percentile` among `n` ordered values (n >= 1): the value at
 * rank ceil(p/100 · n), at least 1.
 */
export const nearestRankIndex = (percentile: number, n: number): number =>
  Math.max(1, Math.ceil((percentile * n) / 100)) - 1;

/** First index in sorted[0..n) whose value is >= value (or > value when `after`). */
function rankOf(sorted: Float64Array, n: number, value: number, after: boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = sorted[mid]!;
    if (at < value || (after && at === value)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class LatencyWindow {
  private values = new Float64Array(INITIAL_CAPACITY);
  /** The receive minute of each sample, so that samples older than the 24 h can be dropped. */
  private minutes = new Int32Array(INITIAL_CAPACITY);
  /**
   * The same samples in ascending order, kept so as each one comes and goes (a binary search and
   * a shift of at most LATENCY_SAMPLES numbers): percentiles are read off it. Recomputing them by
   * selection at every snapshot cost the metrics actor a third of its time under a steady ingest,
   * where nearly every type's window changes between two snapshots.
   */
  private sorted = new Float64Array(INITIAL_CAPACITY);
  private start = 0;
  private size = 0;
  private cached: LatencyWindowStats = EMPTY_STATS;
  private dirty = false;

  get sampleCount(): number {
    return this.size;
  }

  /** Hot path: one measurement; past LATENCY_SAMPLES the oldest one is replaced. */
  add(latencyMs: number, minute: number): void {
    this.dirty = true;
    let capacity = this.values.length;
    if (this.size === capacity) {
      if (capacity < LATENCY_SAMPLES) {
        this.grow(Math.min(LATENCY_SAMPLES, capacity * 2));
        capacity = this.values.length;
      } else {
        const slot = this.start;
        this.unsort(this.values[slot]!, this.size);
        this.sort(latencyMs, this.size - 1);
        this.values[slot] = latencyMs;
        this.minutes[slot] = minute;
        this.start = slot + 1 === capacity ? 0 : slot + 1;
        return;
      }
    }
    let slot = this.start + this.size;
    if (slot >= capacity) slot -= capacity;
    this.values[slot] = latencyMs;
    this.minutes[slot] = minute;
    this.sort(latencyMs, this.size);
    this.size++;
  }

  /** Drops the oldest samples received before `minute`; true when the window is now empty. */
  dropBefore(minute: number): boolean {
    const capacity = this.values.length;
    while (this.size > 0 && this.minutes[this.start]! < minute) {
      this.unsort(this.values[this.start]!, this.size);
      this.start = (this.start + 1) % capacity;
      this.size--;
      this.dirty = true;
    }
    return this.size === 0;
  }

  stats(): LatencyWindowStats {
    if (this.dirty) {
      this.cached = this.compute();
      this.dirty = false;
    }
    return this.cached;
  }

  /** Puts a sample into sorted[0..n), which then holds n + 1. */
  private sort(value: number, n: number): void {
    const at = rankOf(this.sorted, n, value, true);
    this.sorted.copyWithin(at + 1, at, n);
    this.sorted[at] = value;
  }

  /** Takes one sample of this value out of sorted[0..n), which then holds n - 1. */
  private unsort(value: number, n: number): void {
    const at = rankOf(this.sorted, n, value, false);
    this.sorted.copyWithin(at, at + 1, n);
  }

  private compute(): LatencyWindowStats {
    const n = this.size;
    if (n === 0) return EMPTY_STATS;
    const capacity = this.values.length;
    // Summed in arrival order, as the samples came.
    let sum = 0;
    for (let i = 0, slot = this.start; i < n; i++) {
      sum += this.values[slot]!;
      slot = slot + 1 === capacity ? 0 : slot + 1;
    }
    const sorted = this.sorted;
    return {
      p50: sorted[nearestRankIndex(50, n)]!,
      p95: sorted[nearestRankIndex(95, n)]!,
      p99: sorted[nearestRankIndex(99, n)]!,
      avg: sum / n,
      min: sorted[0]!,
      max: sorted[n - 1]!,
      sampleCount: n,
    };
  }

  private grow(capacity: number): void {
    const values = new Float64Array(capacity);
    const minutes = new Int32Array(capacity);
    const old = this.values.length;
    for (let i = 0; i < this.size; i++) {
      values[i] = this.values[(this.start + i) % old]!;
      minutes[i] = this.minutes[(this.start + i) % old]!;
    }
    const sorted = new Float64Array(capacity);
    sorted.set(this.sorted.subarray(0, this.size));
    this.values = values;
    this.minutes = minutes;
    this.sorted = sorted;
    this.start = 0;
  }
}
