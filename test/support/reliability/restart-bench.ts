/**
 * The restart bench of bench:chaos (issue 33): (1) the time from a restart to the first restored
 * snapshot against the events it replayed; (2) what checkpoints cost ingest: the same saturating
 * ingest with METRICS_CHECKPOINT_SECONDS=0 (none timed) and =10, events/s, p99 and the service's
 * CPU per event (/proc, all its threads).
 */
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../free-port.ts';
import { keyHeaders } from '../keys.ts';
import { externalDatabase, runDatabase, type RunDatabase } from '../run-databases.ts';
import { spawnVigil, stopServer, type ServerProcess } from '../service-process.ts';
import { startIngestLoad } from './ingest-load.ts';
import { metricsCounting, postBatch, readMetrics, resetMetricsOf } from './metrics-restart.ts';

export interface ReplayRun {
  readonly events: number;
  readonly replayedEvents: number;
  /** From the spawn of the restarted process to its first healthy answer (its snapshot is ready). */
  readonly startMs: number;
  /** The actor's restore alone: load, decode, replay (restoredFrom.restoreMs). */
  readonly restoreMs: number;
  /** Its first snapshot counts every event. */
  readonly exact: boolean;
}

/** CPU seconds (user + system) of a process and all its threads, from /proc. */
function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat(5), 12 and 13 after the command.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const dbOf = (databaseUrl: string | undefined): Promise<RunDatabase> | RunDatabase =>
  databaseUrl === undefined ? runDatabase() : externalDatabase(databaseUrl);

/**
 * A reset (its checkpoint), `events` events, kill -9, a restart: it replays them all. Periodic
 * checkpoints off, so the replay is exactly those events.
 */
export async function runReplay(
  databaseUrl: string | undefined,
  events: number,
): Promise<ReplayRun> {
  const db = await dbOf(databaseUrl);
  const port = await freePort();
  const env = { ...db.env, METRICS_CHECKPOINT_SECONDS: '0' };
  try {
    const first = await spawnVigil({ port, env, name: 'vigil#1' });
    await resetMetricsOf(first);
    for (let sent = 0; sent < events; sent += 1000)
      await postBatch(first, 'replayed', Math.min(1000, events - sent));
    await metricsCounting(first, events, 60_000);
    first.signalGroup('SIGKILL');
    await first.exited;
    const t0 = Date.now();
    const second = await spawnVigil({ port, env, name: 'vigil#2', readyTimeoutMs: 120_000 });
    const startMs = Date.now() - t0;
    const metrics = await readMetrics(second);
    await stopServer(second);
    return {
      events,
      replayedEvents: metrics.restoredFrom?.replayedEvents ?? -1,
      startMs,
      restoreMs: metrics.restoredFrom?.restoreMs ?? -1,
      exact: metrics.summary.totalEvents === events,
    };
  } finally {
    await db.cleanup();
  }
}

export interface CostRun {
  readonly checkpointSeconds: number;
  readonly eventsPerSecond: number;
  readonly p99Ms: number;
  /** The service's CPU (all threads) per acknowledged event, µs. */
  readonly cpuPerEventUs: number;
  /** Checkpoints written during the stretch (GET /metrics). */
  readonly checkpoints: number;
  /** Their share of the service's CPU in the stretch: the actor's take and encode time. */
  readonly checkpointCpuShare: number;
}

/** The unlabelled samples of GET /metrics, by name (the figures the cost reads). */
async function scrape(proc: ServerProcess): Promise<Map<string, number>> {
  const res = await fetch(`${proc.url}/metrics`, { headers: keyHeaders() });
  const text = await res.text();
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^(vigil_[a-z_]+) ([0-9.e+-]+)$/.exec(line);
    if (match !== null) samples.set(match[1]!, Number(match[2]));
  }
  return samples;
}

/** Saturating ingest for `seconds` from `connections` connections, batches of `batchSize`. */
export async function runCheckpointCost(
  databaseUrl: string | undefined,
  checkpointSeconds: number,
  seconds: number,
  connections: number,
  batchSize: number,
): Promise<CostRun> {
  const db = await dbOf(databaseUrl);
  const env = { ...db.env, METRICS_CHECKPOINT_SECONDS: String(checkpointSeconds) };
  try {
    const proc: ServerProcess = await spawnVigil({ env, name: `vigil-ckpt-${checkpointSeconds}` });
    const load = startIngestLoad({
      url: proc.url,
      connections,
      tag: `cost-${randomBytes(3).toString('hex')}`,
      batchSize,
    });
    // A warm-up, then the measured stretch.
    await sleep(3000);
    const before = await scrape(proc);
    const acked0 = load.acked();
    const cpu0 = cpuSecondsOf(proc.pid);
    const t0 = Date.now();
    await sleep(seconds * 1000);
    const acked = load.acked() - acked0;
    const cpu = cpuSecondsOf(proc.pid) - cpu0;
    const elapsed = (Date.now() - t0) / 1000;
    const after = await scrape(proc);
    const report = await load.stop();
    await stopServer(proc);
    const delta = (name: string): number => (after.get(name) ?? 0) - (before.get(name) ?? 0);
    return {
      checkpointSeconds,
      eventsPerSecond: acked / elapsed,
      p99Ms: report.ackedLatency.p99,
      cpuPerEventUs: (cpu * 1e6) / Math.max(1, acked),
      checkpoints: delta('vigil_checkpoints_total'),
      checkpointCpuShare: delta('vigil_checkpoint_seconds_total') / Math.max(cpu, 1e-9),
    };
  } finally {
    await db.cleanup();
  }
}
