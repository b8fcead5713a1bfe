/**
 * Where the CPU of an ingest goes, per component, between two readings of /proc: the service's
 * threads by role, its embedded PostgreSQL, the load generator's process and this bench process,
 * and the rest of the machine (other processes: on a shared machine they compete for the cores).
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import type postgres from 'postgres';
import { postgresCpuMs, readPostgresCpu, type PostgresReading } from './postgres-cpu.ts';
import { num, printTable, type Cell } from './print-table.ts';
import { serviceCpu, type ServiceCpu } from './service-threads.ts';
import { statCpuMs } from './thread-cpu.ts';

export interface CpuSample {
  /** performance.now() when read. */
  readonly at: number;
  readonly service: ServiceCpu;
  /** Or why PostgreSQL's CPU could not be read. */
  readonly postgres: PostgresReading | string;
  readonly loadGeneratorMs: number;
  readonly benchMs: number;
  /** Busy CPU of the whole machine (/proc/stat: all but idle and iowait). */
  readonly machineMs: number;
}

export interface CpuSampleTargets {
  readonly servicePid: number;
  readonly loadGeneratorPid: number;
  /** Whether the service runs its embedded PostgreSQL (its child: all its processes are read). */
  readonly embeddedPostgres: boolean;
  /** A client on the service's database (finds its backends when PostgreSQL is not embedded). */
  readonly sql: postgres.Sql;
}

const USER_HZ = 100;

function machineBusyMs(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  // cpu user nice system idle iowait irq softirq steal ...
  const [user, nice, system, , , irq, softirq, steal] = line.split(/\s+/).slice(1).map(Number);
  const busy = [user, nice, system, irq, softirq, steal].reduce<number>((a, b) => a + (b ?? 0), 0);
  return (busy * 1000) / USER_HZ;
}

export async function sampleCpu(targets: CpuSampleTargets): Promise<CpuSample> {
  const postgres = await readPostgresCpu(targets.servicePid, targets.embeddedPostgres, targets.sql);
  const own = process.cpuUsage();
  return {
    at: performance.now(),
    service: serviceCpu(targets.servicePid),
    postgres,
    loadGeneratorMs: statCpuMs(readFileSync(`/proc/${targets.loadGeneratorPid}/stat`, 'utf8')),
    benchMs: (own.user + own.system) / 1000,
    machineMs: machineBusyMs(),
  };
}

export interface BreakdownWindow {
  readonly from: CpuSample;
  readonly to: CpuSample;
  /** Events acknowledged (202) in the window. */
  readonly events: number;
}

/**
 * Prints the table: CPU ms, µs per acknowledged event and % of the machine's cores, per row; then
 * why PostgreSQL was not read, if it was not.
 */
export function printCpuBreakdown({ from, to, events }: BreakdownWindow): void {
  const wallMs = to.at - from.at;
  const cores = cpus().length;
  const d = (pick: (s: CpuSample) => number): number => pick(to) - pick(from);
  const service = (pick: (s: ServiceCpu) => number): number => d((s) => pick(s.service));
  const front = service((s) => s.frontMs);
  const storage = service((s) => s.storageMs);
  const metrics = service((s) => s.metricsMs);
  const other = service((s) => s.totalMs) - front - storage - metrics;
  const postgres =
    typeof from.postgres === 'string' || typeof to.postgres === 'string'
      ? null
      : postgresCpuMs(from.postgres, to.postgres);
  const load = d((s) => s.loadGeneratorMs);
  const bench = d((s) => s.benchMs);
  const attributed = front + storage + metrics + other + (postgres ?? 0) + load + bench;
  const rest = d((s) => s.machineMs) - attributed;
  const row = (name: string, ms: number | null): Cell[] =>
    ms === null
      ? [name, 'not read', '–', '–']
      : [name, num(ms), num((ms * 1000) / events, 1), num((100 * ms) / (wallMs * cores), 1)];
  const threads = `${to.service.storageThreads} threads`;
  printTable(
    [
      { title: 'component' },
      { title: 'CPU ms', align: 'right' },
      { title: 'µs per event', align: 'right' },
      { title: `% of ${cores} cores`, align: 'right' },
    ],
    [
      row('front thread (uWS, main)', front),
      row(`storage workers (sum, ${threads})`, storage),
      row('metrics actor', metrics),
      row('other service threads (V8, GC, libuv)', other),
      row(
        `PostgreSQL (${typeof to.postgres === 'string' ? 'not read' : to.postgres.label})`,
        postgres,
      ),
      row('load generator (paced-ingest process)', load),
      row('bench process (this one)', bench),
      row('**total of the above**', attributed),
      row('rest of the machine (other processes)', rest),
    ],
  );
  const reason = [from.postgres, to.postgres].find((p) => typeof p === 'string');
  if (reason !== undefined) process.stdout.write(`\nPostgreSQL is not attributed: ${reason}.\n`);
}
