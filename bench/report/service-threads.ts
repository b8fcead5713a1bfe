/**
 * The benched service's CPU by thread role, from /proc (Linux only). On Node 20 every thread is
 * called "node", so each storage worker and the metrics actor names itself at its start
 * (src/telemetry/thread-name.ts). The front thread is the main thread (tid = pid);
 * "other" (V8's platform and GC threads, libuv's pool, threads that have exited) is the process's
 * total less the named threads, so no CPU is lost between the rows.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { THREAD_NAMES } from '../../src/telemetry/thread-name.ts';
import { statCpuMs } from './thread-cpu.ts';

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
    else if (comm === THREAD_NAMES.storage) {
      storageMs += ms;
      storageThreads++;
    } else if (comm === THREAD_NAMES.metrics) {
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
