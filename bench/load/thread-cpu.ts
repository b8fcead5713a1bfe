/**
 * CPU time one thread has used (user + system, ms) as the kernel counts it, from
 * /proc/<pid>/task/<tid>/stat. Linux only; the fan-out bench reads the service's front thread
 * (the main thread: tid = pid), which does all STOMP sends.
 */
import { readFile } from 'node:fs/promises';

/** stat(5) counts in clock ticks; USER_HZ is 100 on every Linux ABI Node runs on. */
const USER_HZ = 100;

export async function threadCpuMs(pid: number, tid = pid): Promise<number> {
  const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  // The command (field 2) may hold spaces; fields from 3 on follow its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[14 - 3]);
  const stime = Number(fields[15 - 3]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) {
    throw new Error(`unreadable /proc/${pid}/task/${tid}/stat`);
  }
  return ((utime + stime) * 1000) / USER_HZ;
}
