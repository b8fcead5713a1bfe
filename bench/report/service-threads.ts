/**
 * The benched service's CPU by thread role, from /proc (Linux only). On Node 20 every thread is
 * called "node", so the service runs with bench/harness/name-threads.mjs preloaded: each storage
 * worker and the metrics actor name themselves. The front thread is the main thread (tid = pid);
 * "other" (V8's platform and GC threads, libuv's pool, threads that have exited) is the process's
 * total less the named threads, so no CPU is lost between the rows.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { statCpuMs } from './thread-cpu.ts';

const PRELOAD = new URL('../harness/name-threads.mjs', import.meta.url);

/** Service variables that preload the thread naming (kept after any NODE_OPTIONS of the caller). */
export const threadNamingEnv = (): Record<string, string> => ({
  NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${PRELOAD.href}`]
    .filter((part) => part !== undefined && part !== '')
    .join(' '),
});

export interface ServiceCpu {
  /** Every thread's, past and present (/proc/<pid>/stat). */
  readonly totalMs: number;
  readonly frontMs: number;
  readonly storageMs: number;
  readonly metricsMs: number;
  readonly storageThreads: number;
  readonly metricsThreads: number;
}

const readOrNull = (file: string): string | null => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null; // The thread ended while we looked; its CPU stays in the process total.
  }
};

export function serviceCpu(pid: number): ServiceCpu {
  const total = readOrNull(`/proc/${pid}/stat`);
  if (total === null) throw new Error(`the service (pid ${pid}) is gone`);
  let frontMs = 0;
  let storageMs = 0;
  let metricsMs = 0;
  let storageThreads = 0;
  let metricsThreads = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const comm = readOrNull(`/proc/${pid}/task/${tid}/comm`)?.trim();
    const stat = readOrNull(`/proc/${pid}/task/${tid}/stat`);
    if (comm === undefined || stat === null) continue;
    const ms = statCpuMs(stat);
    if (Number(tid) === pid) frontMs = ms;
    else if (comm === 'vigil-storage') {
      storageMs += ms;
      storageThreads++;
    } else if (comm === 'vigil-metrics') {
      metricsMs += ms;
      metricsThreads++;
    }
  }
  return {
    totalMs: statCpuMs(total),
    frontMs,
    storageMs,
    metricsMs,
    storageThreads,
    metricsThreads,
  };
}
