/**
 * @module Per-second event counts over the last hour (by `receivedAt`), for throughput current /
 * avg / trend and each minute's busiest second.
 */
import { AVERAGE_THROUGHPUT_SECONDS } from '../metrics-limits.ts';

const SLOTS = AVERAGE_THROUGHPUT_SECONDS;

export class SecondRing {
  private readonly counts = new Uint32Array(SLOTS);
  private readonly stamps = new Float64Array(SLOTS).fill(-1);

  /** Counts one event in `second` and returns that second's new count; 0 when it is over 1 h old. */
  add(second: number): number {
    const slot = second % SLOTS;
    const stamp = this.stamps[slot]!;
    if (stamp !== second) {
      if (stamp > second) return 0;
      this.stamps[slot] = second;
      this.counts[slot] = 0;
    }
    return ++this.counts[slot]!;
  }

  /** Events in the seconds `from`..`to`, both included; seconds over 1 h old count 0. */
  sum(from: number, to: number): number {
    let total = 0;
    for (let second = Math.max(from, to - SLOTS + 1); second <= to; second++) {
      const slot = second % SLOTS;
      if (this.stamps[slot] === second) total += this.counts[slot]!;
    }
    return total;
  }
}
