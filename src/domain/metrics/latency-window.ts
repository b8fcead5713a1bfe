/**
 * @module The last LATENCY_SAMPLES latency measurements of one scope (overall, a type, a source),
 * with nearest-rank p50 / p95 / p99, avg, min and max recomputed only after the window changed.
 */
import { LATENCY_SAMPLES } from './metrics-limits.ts';
import { nearestRankIndex, selectInPlace } from './nearest-rank.ts';

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

/** Shared by every window: the metrics actor is single-threaded and stats() does not re-enter. */
const scratch = new Float64Array(LATENCY_SAMPLES);
const INITIAL_CAPACITY = 16;

export class LatencyWindow {
  private values = new Float64Array(INITIAL_CAPACITY);
  /** The receive minute of each sample, so that samples older than the 24 h can be dropped. */
  private minutes = new Int32Array(INITIAL_CAPACITY);
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
    this.size++;
  }

  /** Drops the oldest samples received before `minute`; true when the window is now empty. */
  dropBefore(minute: number): boolean {
    const capacity = this.values.length;
    while (this.size > 0 && this.minutes[this.start]! < minute) {
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

  private compute(): LatencyWindowStats {
    const n = this.size;
    if (n === 0) return EMPTY_STATS;
    const capacity = this.values.length;
    const end = this.start + n;
    if (end <= capacity) scratch.set(this.values.subarray(this.start, end));
    else {
      scratch.set(this.values.subarray(this.start));
      scratch.set(this.values.subarray(0, end - capacity), capacity - this.start);
    }
    let sum = 0;
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < n; i++) {
      const value = scratch[i]!;
      sum += value;
      if (value < min) min = value;
      if (value > max) max = value;
    }
    // p95 first over all n; p99 then lies in the few values right of it, p50 in those left of it.
    const i50 = nearestRankIndex(50, n);
    const i95 = nearestRankIndex(95, n);
    const i99 = nearestRankIndex(99, n);
    selectInPlace(scratch, 0, n - 1, i95);
    if (i99 > i95) selectInPlace(scratch, i95 + 1, n - 1, i99);
    if (i50 < i95) selectInPlace(scratch, 0, i95 - 1, i50);
    return {
      p50: scratch[i50]!,
      p95: scratch[i95]!,
      p99: scratch[i99]!,
      avg: sum / n,
      min,
      max,
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
    this.values = values;
    this.minutes = minutes;
    this.start = 0;
  }
}
