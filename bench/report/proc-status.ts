/**
 * Memory of a process as the kernel counts it (/proc/<pid>/status): resident set now (VmRSS) and
 * its peak (VmHWM), in MB. Linux only; the benches read the service child's pid.
 */
import { readFile } from 'node:fs/promises';

export interface ProcessMemory {
  readonly rssMb: number;
  readonly peakRssMb: number;
}

const field = (status: string, name: string): number => {
  const kb = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
  if (kb === undefined) throw new Error(`/proc status has no ${name}`);
  return Number(kb) / 1024;
};

export async function processMemory(pid: number): Promise<ProcessMemory> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return { rssMb: field(status, 'VmRSS'), peakRssMb: field(status, 'VmHWM') };
}
