/**
 * @module Names the calling thread in /proc (Linux): on Node 20 every thread is called "node", so
 * `top -H`, `ps -L` and the benches' per-thread CPU breakdown could not tell the storage workers
 * and the metrics actor from V8's and libuv's threads. Once per thread, at its start.
 */
import { writeFileSync } from 'node:fs';

/** The names threads give themselves (at most 15 bytes: the kernel's limit for a thread name). */
export const THREAD_NAMES = {
  storage: 'vigil-storage',
  reads: 'vigil-reads',
  metrics: 'vigil-metrics',
  backtest: 'vigil-backtest',
  cluster: 'vigil-cluster',
} as const;

export function nameThisThread(name: (typeof THREAD_NAMES)[keyof typeof THREAD_NAMES]): void {
  try {
    writeFileSync('/proc/thread-self/comm', name);
  } catch {
    // Not Linux, or /proc not mounted: the thread keeps its name, nothing else depends on it.
  }
}
