/**
 * @module Times the metrics actor's evaluation ticks for GET /api/v1/rules/evaluation-stats: the
 * wall time always (two clock readings), the time on a CPU only when EVALUATION_CPU_STATS asks
 * for it (two reads of the scheduler's statistics per tick). The wall times also go into a
 * histogram since start, for GET /metrics (Prometheus rates need counts that never go down).
 */
import { PlainHistogram, type HistogramCounts } from './plain-histogram.ts';
import { OwnSchedClock } from './thread-schedstat.ts';
import { TickStats, type TickSummary } from './tick-stats.ts';

/** Bounds of the tick-time histogram, in seconds: 0.1 ms to 1 s (a tick past 1 s is a problem). */
export const TICK_SECONDS_BOUNDS: readonly number[] = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
];

export class TickTimer {
  private readonly stats = new TickStats();
  private readonly seconds = new PlainHistogram(TICK_SECONDS_BOUNDS);
  private readonly clock: OwnSchedClock | null;

  /** Must be made on the thread whose ticks it times (its CPU clock is that thread's). */
  constructor(onCpu: boolean) {
    this.clock = onCpu ? OwnSchedClock.open() : null;
  }

  /** Runs one tick and records how long it took. */
  time<T>(tick: () => T): T {
    const cpuBefore = this.clock?.read() ?? null;
    const started = performance.now();
    const result = tick();
    const wallMs = performance.now() - started;
    const cpuAfter = this.clock?.read() ?? null;
    this.seconds.observe(wallMs / 1000);
    this.stats.add(
      wallMs,
      cpuBefore === null || cpuAfter === null ? null : (cpuAfter.onCpuNs - cpuBefore.onCpuNs) / 1e6,
    );
    return result;
  }

  summary(last: number): TickSummary {
    return this.stats.summary(last);
  }

  /** Every tick's wall time since this timer was made, in seconds. */
  histogram(): HistogramCounts {
    return this.seconds.read();
  }

  close(): void {
    this.clock?.close();
  }
}
