/**
 * A clock and timers that move only when the test says so: code that takes them (the ingest
 * batcher) is tested on what it schedules and in which order, never on how long a run took.
 */
import type { BatcherTimers } from '../../src/actors/ingest-batcher.ts';

interface Due {
  readonly at: number;
  readonly run: () => void;
}

export class ManualTimers implements BatcherTimers {
  private time = 0;
  private nextId = 1;
  private readonly due = new Map<number, Due>();

  now(): number {
    return this.time;
  }

  setTimeout<A>(callback: (arg: A) => void, ms: number, arg: A): number {
    const id = this.nextId++;
    this.due.set(id, { at: this.time + Math.max(0, ms), run: () => callback(arg) });
    return id;
  }

  clearTimeout(handle: unknown): void {
    if (typeof handle === 'number') this.due.delete(handle);
  }

  /** How far ahead each pending timer is, soonest first. */
  pending(): number[] {
    return [...this.due.values()].map((d) => d.at - this.time).sort((a, b) => a - b);
  }

  /** Moves the clock `ms` on, running each timer that falls due on the way, in order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const next = [...this.due.entries()]
        .filter(([, d]) => d.at <= end)
        .sort(([a, x], [b, y]) => x.at - y.at || a - b)[0];
      if (next === undefined) break;
      const [id, due] = next;
      this.due.delete(id);
      this.time = due.at;
      due.run();
    }
    this.time = end;
  }
}
