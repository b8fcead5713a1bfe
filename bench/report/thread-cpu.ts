/**
 * How one thread of the service spends its time, as the kernel counts it (Linux only): CPU used
 * from /proc/<pid>/task/<tid>/stat, and time on a CPU vs waiting for one from .../schedstat. The
 * benches read the service's front thread (the main thread: tid = pid), which answers every
 * request and does all STOMP sends.
 */
import { readFile } from 'node:fs/promises';
import { threadSchedTimes } from '../../src/telemetry/thread-schedstat.ts';

/** stat(5) counts in clock ticks; USER_HZ is 100 on every Linux ABI Node runs on. */
const USER_HZ = 100;

/**
 * CPU (user + system) in ms from the text of a /proc stat file, a process's or a thread's; with
 * `withChildren`, also the CPU of the children it has waited for (cutime, cstime).
 */
export function statCpuMs(stat: string, withChildren = false): number {
  // The command (field 2) may hold spaces; fields from 3 on follow its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = (withChildren ? [14, 15, 16, 17] : [14, 15]).map((n) => Number(fields[n - 3]));
  if (!ticks.every(Number.isFinite)) throw new Error(`unreadable /proc stat: ${stat.slice(0, 80)}`);
  return (ticks.reduce((a, b) => a + b, 0) * 1000) / USER_HZ;
}

export async function threadCpuMs(pid: number, tid = pid): Promise<number> {
  return statCpuMs(await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
}

/** A thread's share of a window: on a CPU, and runnable but waiting for one (% of wall time). */
export interface SchedShare {
  readonly onCpuPercent: number;
  readonly waitingPercent: number;
}

/**
 * Runs `work` and tells how the thread spent that time, from the scheduler's own counts
 * (/proc/<pid>/task/<tid>/schedstat); share is null where the kernel does not keep them.
 */
export async function measureSchedShare<T>(
  pid: number,
  work: () => Promise<T>,
  tid = pid,
): Promise<{ readonly result: T; readonly share: SchedShare | null }> {
  const file = `/proc/${pid}/task/${tid}/schedstat`;
  const before = threadSchedTimes(file);
  const started = performance.now();
  const result = await work();
  const wallNs = (performance.now() - started) * 1e6;
  const after = threadSchedTimes(file);
  const share =
    before === null || after === null
      ? null
      : {
          onCpuPercent: (100 * (after.onCpuNs - before.onCpuNs)) / wallNs,
          waitingPercent: (100 * (after.waitingNs - before.waitingNs)) / wallNs,
        };
  return { result, share };
}
