/**
 * CPU of the service's embedded PostgreSQL (postmaster and backends), from /proc. Backends that
 * exit are reaped by the postmaster, whose cutime/cstime then hold their CPU: the postmaster is
 * read with its waited-for children, the live backends without, so the difference of two readings
 * counts each backend's CPU in the window exactly once.
 */
import { readFileSync } from 'node:fs';
import { childrenOf, isPostgres } from '../../test/support/processes.ts';
import { statCpuMs } from './thread-cpu.ts';

/** The postgres processes among `pid`'s descendants, with whether their parent is postgres. */
function postgresDescendants(pid: number): { pid: number; postmaster: boolean }[] {
  const found: { pid: number; postmaster: boolean }[] = [];
  const walk = (parent: number, parentIsPostgres: boolean): void => {
    for (const child of childrenOf(parent)) {
      const postgres = isPostgres(child);
      if (postgres) found.push({ pid: child, postmaster: !parentIsPostgres });
      walk(child, postgres);
    }
  };
  walk(pid, false);
  return found;
}

/** Total CPU ms of the PostgreSQL under `servicePid`, and how many of its processes were read. */
export function postgresCpu(servicePid: number): {
  readonly ms: number;
  readonly processes: number;
} {
  let ms = 0;
  let processes = 0;
  for (const proc of postgresDescendants(servicePid)) {
    try {
      ms += statCpuMs(readFileSync(`/proc/${proc.pid}/stat`, 'utf8'), proc.postmaster);
      processes++;
    } catch {
      // Exited while we looked: the postmaster's children's time holds it now.
    }
  }
  return { ms, processes };
}
