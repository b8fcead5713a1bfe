/**
 * @module Durations of the evaluator's ticks (the last 600): nearest-rank p50 / p99 and the max,
 * for the rules benchmark and the operators' view of evaluation cost.
 */
const KEEP = 600;

export class TickStats {
  private readonly durations: number[] = [];
  private count = 0;

  add(ms: number): void {
    this.durations[this.count % KEEP] = ms;
    this.count++;
  }

  summary(): { ticks: number; p50Ms: number; p99Ms: number; maxMs: number } {
    const sorted = [...this.durations].sort((a, b) => a - b);
    const rank = (p: number): number =>
      sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
    return { ticks: this.count, p50Ms: rank(50), p99Ms: rank(99), maxMs: sorted.at(-1) ?? 0 };
  }
}
