/**
 * CPU of the PostgreSQL serving the benched service, per process, from /proc. Embedded: the
 * postmaster and all its processes among the service's descendants; backends that exit are reaped
 * by the postmaster, whose cutime/cstime then hold their CPU, so the postmaster is read with its
 * waited-for children and the others without. DATABASE_URL: only the backends serving the
 * service's connections (service-backends.ts); one that exits in the window loses its time there.
 */
import { readFileSync } from 'node:fs';
import type postgres from 'postgres';
import { childrenOf, isPostgres } from '../../test/support/shared.ts';
import { serviceBackendPids } from './service-backends.ts';
import { statCpuMs } from './thread-cpu.ts';

export interface PostgresReading {
  /** CPU ms by pid (the embedded postmaster's includes its reaped children). */
  readonly byPid: ReadonlyMap<number, number>;
  /** True when the time of a process that exits stays counted (in the embedded postmaster). */
  readonly reaped: boolean;
  readonly label: string;
}

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

function readCpu(pids: readonly { pid: number; postmaster: boolean }[]): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const proc of pids) {
    try {
      byPid.set(
        proc.pid,
        statCpuMs(readFileSync(`/proc/${proc.pid}/stat`, 'utf8'), proc.postmaster),
      );
    } catch {
      // Exited while we looked: the postmaster's children's time holds it now (embedded).
    }
  }
  return byPid;
}

/** One reading, or why PostgreSQL's CPU cannot be read from here. */
export async function readPostgresCpu(
  servicePid: number,
  embedded: boolean,
  sql: postgres.Sql,
): Promise<PostgresReading | string> {
  if (embedded) {
    const byPid = readCpu(postgresDescendants(servicePid));
    return { byPid, reaped: true, label: `postmaster + ${byPid.size - 1} processes` };
  }
  const pids = await serviceBackendPids(sql, servicePid);
  if (typeof pids === 'string') return pids;
  const byPid = readCpu(pids.filter(isPostgres).map((pid) => ({ pid, postmaster: false })));
  return { byPid, reaped: false, label: `${byPid.size} backends of the service only` };
}

/** CPU ms between two readings; a process seen only in the first counts only where it was reaped. */
export function postgresCpuMs(from: PostgresReading, to: PostgresReading): number {
  let ms = 0;
  for (const value of to.byPid.values()) ms += value;
  for (const [pid, value] of from.byPid) if (to.reaped || to.byPid.has(pid)) ms -= value;
  return ms;
}
