/**
 * @module Times the metrics actor's evaluation ticks for GET /api/v1/rules/evaluation-stats: the
 * wall time always (two clock readings), the time on a CPU only when EVALUATION_CPU_STATS asks
 * for it (two reads of the scheduler's statistics per tick).
 */
import { OwnSchedClock } from './thread-schedstat.ts';
import { TickStats, type TickSummary } from './tick-stats.ts';

export class TickTimer {
  private readonly stats = new TickStats();
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
    this.stats.add(
      wallMs,
      cpuBefore === null || cpuAfter === null ? null : (cpuAfter.onCpuNs - cpuBefore.onCpuNs) / 1e6,
    );
    return result;
  }

  summary(last: number): TickSummary {
    return this.stats.summary(last);
  }

  close(): void {
    this.clock?.close();
  }
}
