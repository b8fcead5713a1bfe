/**
 * @module Durations of the evaluator's ticks (the last 600): nearest-rank p50 / p99 and the max over
 * the last N of them, for the rules benchmark and the operators' view of evaluation cost.
 */
export const KEEP_TICKS = 600;

export class TickStats {
  private readonly durations: number[] = [];
  private count = 0;

  add(ms: number): void {
    this.durations[this.count % KEEP_TICKS] = ms;
    this.count++;
  }

  /** Over the last `last` ticks (at most the 600 kept); `ticks` counts every tick so far. */
  summary(last = KEEP_TICKS): { ticks: number; p50Ms: number; p99Ms: number; maxMs: number } {
    const n = Math.min(last, this.durations.length);
    const recent = Array.from(
      { length: n },
      (_, i) => this.durations[(this.count - 1 - i) % KEEP_TICKS] as number,
    );
    const sorted = recent.sort((a, b) => a - b);
    const rank = (p: number): number =>
      sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
    return { ticks: this.count, p50Ms: rank(50), p99Ms: rank(99), maxMs: sorted.at(-1) ?? 0 };
  }
}
