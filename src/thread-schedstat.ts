/**
 * @module The calling thread's time on a CPU and waiting for one, in ns, as the Linux scheduler
 * counts it (/proc/thread-self/schedstat). A tick's wall time on a busy machine includes waiting
 * for a core; these two tell the evaluator's cost from the machine's load. Null where the file is
 * missing (not Linux, or scheduler statistics compiled out).
 */
import { readFileSync } from 'node:fs';

export interface SchedTimes {
  readonly onCpuNs: number;
  readonly waitingNs: number;
}

export function threadSchedTimes(): SchedTimes | null {
  let text: string;
  try {
    text = readFileSync('/proc/thread-self/schedstat', 'latin1');
  } catch {
    return null;
  }
  const [onCpu, waiting] = text.split(' ').map(Number);
  return onCpu === undefined || waiting === undefined || Number.isNaN(onCpu + waiting)
    ? null
    : { onCpuNs: onCpu, waitingNs: waiting };
}
