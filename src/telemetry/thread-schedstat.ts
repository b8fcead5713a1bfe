/**
 * @module A thread's time on a CPU and waiting for one, in ns, as the Linux scheduler counts it
 * (/proc/<pid>/task/<tid>/schedstat). A tick's wall time on a busy machine includes waiting for a
 * core; these two tell the evaluator's cost from the machine's load. Null where the file is
 * missing (not Linux, or scheduler statistics compiled out).
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';

export interface SchedTimes {
  readonly onCpuNs: number;
  readonly waitingNs: number;
}

const OWN_FILE = '/proc/thread-self/schedstat';

function parse(text: string): SchedTimes | null {
  const [onCpu, waiting] = text.split(' ').map(Number);
  return onCpu === undefined || waiting === undefined || Number.isNaN(onCpu + waiting)
    ? null
    : { onCpuNs: onCpu, waitingNs: waiting };
}

/** One reading: the calling thread's, or another's by its schedstat file (the benches'). */
export function threadSchedTimes(file = OWN_FILE): SchedTimes | null {
  try {
    return parse(readFileSync(file, 'latin1'));
  } catch {
    return null;
  }
}

/**
 * The calling thread's times, read again and again: the file stays open (opening resolves
 * thread-self to this thread), so a reading is one positioned read rather than an open, a read
 * and a close, about a tenth of the cost. Null where the file cannot be opened.
 */
export class OwnSchedClock {
  private readonly buffer = Buffer.alloc(128);

  private constructor(private fd: number | null) {}

  static open(): OwnSchedClock | null {
    try {
      return new OwnSchedClock(openSync(OWN_FILE, 'r'));
    } catch {
      return null;
    }
  }

  read(): SchedTimes | null {
    if (this.fd === null) return null;
    try {
      const length = readSync(this.fd, this.buffer, 0, this.buffer.length, 0);
      return parse(this.buffer.toString('latin1', 0, length));
    } catch {
      return null;
    }
  }

  /** File descriptors belong to the process: a thread that ends must give its own back. */
  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
