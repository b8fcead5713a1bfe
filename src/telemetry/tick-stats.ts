/**
 * @module Durations of the evaluator's ticks (the last 600): nearest-rank p50 / p99 and the max over
 * the last N of them, of the wall time and, where the thread's scheduler times are measured, of
 * the time it spent on a CPU (the wall time minus waiting for a core on a busy machine).
 */
export const KEEP_TICKS = 600;

export interface Percentiles {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface TickSummary extends Percentiles {
  /** Every tick so far. */
  readonly ticks: number;
  /** Null while some summarised tick had no CPU time (not measured, or statistics unavailable). */
  readonly onCpu: Percentiles | null;
}

function percentiles(values: number[]): Percentiles {
  const sorted = values.sort((a, b) => a - b);
  const rank = (p: number): number =>
    sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
  return { p50Ms: rank(50), p99Ms: rank(99), maxMs: sorted.at(-1) ?? 0 };
}

export class TickStats {
  private readonly wall = new Float64Array(KEEP_TICKS);
  private readonly onCpu = new Float64Array(KEEP_TICKS);
  private count = 0;

  /** One tick: its wall time, and its time on a CPU (null when unknown). */
  add(wallMs: number, onCpuMs: number | null): void {
    const slot = this.count % KEEP_TICKS;
    this.wall[slot] = wallMs;
    this.onCpu[slot] = onCpuMs ?? Number.NaN;
    this.count++;
  }

  /** Over the last `last` ticks (at most the 600 kept). */
  summary(last = KEEP_TICKS): TickSummary {
    const n = Math.min(last, this.count, KEEP_TICKS);
    const slots = Array.from({ length: n }, (_, i) => (this.count - 1 - i) % KEEP_TICKS);
    const cpu = slots.map((slot) => this.onCpu[slot] as number);
    return {
      ticks: this.count,
      ...percentiles(slots.map((slot) => this.wall[slot] as number)),
      onCpu: cpu.some(Number.isNaN) ? null : percentiles(cpu),
    };
  }
}
