/**
 * @module A thread's time on a CPU and waiting for one, in ns, as the Linux scheduler counts it
 * (/proc/thread-self/schedstat for the calling thread; the benches read the service's threads). A tick's wall time on a busy machine includes waiting
 * for a core; these two tell the evaluator's cost from the machine's load. Null where the file is
 * missing (not Linux, or scheduler statistics compiled out).
 */
import { readFileSync } from 'node:fs';

export interface SchedTimes {
  readonly onCpuNs: number;
  readonly waitingNs: number;
}

/** The calling thread's, or another's by its schedstat file (/proc/<pid>/task/<tid>/schedstat). */
export function threadSchedTimes(file = '/proc/thread-self/schedstat'): SchedTimes | null {
  let text: string;
  try {
    text = readFileSync(file, 'latin1');
  } catch {
    return null;
  }
  const [onCpu, waiting] = text.split(' ').map(Number);
  return onCpu === undefined || waiting === undefined || Number.isNaN(onCpu + waiting)
    ? null
    : { onCpuNs: onCpu, waitingNs: waiting };
}
