/**
 * `npm run bench:cluster` (issue 23): what running several instances costs on one machine. A
 * private nats-server (JetStream), one PostgreSQL (DATABASE_URL, else an embedded one started
 * here) and the compiled service, in one run:
 * 1. ingest: autocannon POSTs (CONNECTIONS in all, split evenly over the instances, ROUNDS x
 *    DURATION s after WARMUP s) to one instance alone (no NATS_URL), to one instance in cluster
 *    mode, then to two. The instances share the same 2 cores: this shows the overhead, not scale;
 * 2. lag: LAG_SAMPLES times, one event posted to instance A; from its 202 until instance B's GET
 *    /api/v1/metrics counts it (B polled every LAG_POLL_MS, so the figure includes up to one poll
 *    and one snapshot refresh);
 * 3. failover: the instance holding the rule leader lease killed with SIGKILL; from the kill until
 *    the other one's GET /metrics says it holds the lease (polled every 100 ms).
 */
import { mkdtemp, rm, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { createLogger } from '../src/log.ts';
import { freePort } from '../test/support/shared.ts';
import { natsServerPath, NO_NATS_SERVER, startNatsServer } from '../test/support/shared.ts';
import { externalDatabase } from '../test/support/shared.ts';
import { spawnVigil, stopServer, type ServerProcess } from '../test/support/shared.ts';
import { buildService, SERVICE_ROOT } from './harness/bench-service.ts';
import { intKnob } from './harness/knobs.ts';
import { JSON_KEY_HEADERS, keyedFetch } from './load-generators/client-key.ts';
import {
  median,
  runLoad,
  type LoadScenario,
  type LoadSummary,
} from './load-generators/run-load.ts';
import { loadAverage, machineNote, out } from './report/bench-notes.ts';
import { num, printTable } from './report/print-table.ts';

const CONNECTIONS = intKnob('CONNECTIONS', 50);
const ROUNDS = intKnob('ROUNDS', 3);
const DURATION = intKnob('DURATION', 15);
const WARMUP = intKnob('WARMUP', 5, 0);
const LAG_SAMPLES = intKnob('LAG_SAMPLES', 100);
const LAG_POLL_MS = intKnob('LAG_POLL_MS', 10);
const FAILOVERS = intKnob('FAILOVERS', 1, 0);

const EVENT = JSON.stringify({
  eventType: 'page_view',
  source: 'web-frontend',
  userId: 'user-10001',
  severity: 'INFO',
  tags: { region: 'eu-west-1', env: 'production' },
  metadata: { path: '/shop/category/1/item/1001', durationMs: 133 },
});

const ingestScenario = (proc: ServerProcess, connections: number, name: string): LoadScenario => ({
  name,
  baseUrl: proc.url,
  requests: [{ method: 'POST', path: '/api/v1/events', body: EVENT }],
  connections,
  pipelining: 1,
  expectedStatus: 202,
});

interface IngestRow {
  readonly name: string;
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly failed: number;
}

/** The same load split over `procs`, all at once; req/s summed, latencies the worst instance's. */
async function ingest(name: string, procs: readonly ServerProcess[]): Promise<IngestRow> {
  const each = Math.max(1, Math.floor(CONNECTIONS / procs.length));
  const runs: LoadSummary[] = await Promise.all(
    procs.map((proc, i) =>
      runLoad(ingestScenario(proc, each, `${name} #${i}`), {
        rounds: ROUNDS,
        durationSec: DURATION,
        warmupSec: WARMUP,
      }),
    ),
  );
  return {
    name,
    reqPerSec: runs.reduce((sum, run) => sum + run.reqPerSec, 0),
    p50Ms: Math.max(...runs.map((run) => run.p50Ms)),
    p99Ms: Math.max(...runs.map((run) => run.p99Ms)),
    failed: runs.reduce((sum, run) => sum + run.non2xx + run.errors, 0),
  };
}

async function counted(proc: ServerProcess, source: string): Promise<number> {
  const res = await keyedFetch(`${proc.url}/api/v1/metrics`);
  const body = (await res.json()) as { eventsBySource?: Record<string, number> };
  return body.eventsBySource?.[source] ?? 0;
}

/** ms from a 202 on `a` to `b` counting the event, LAG_SAMPLES times. */
async function lags(a: ServerProcess, b: ServerProcess): Promise<number[]> {
  const source = 'cluster-lag-probe';
  const samples: number[] = [];
  let expected = await counted(b, source);
  for (let i = 0; i < LAG_SAMPLES; i++) {
    const res = await fetch(`${a.url}/api/v1/events`, {
      method: 'POST',
      headers: JSON_KEY_HEADERS,
      body: JSON.stringify({ eventType: 'lag_probe', source, severity: 'INFO' }),
    });
    if (res.status !== 202) throw new Error(`lag probe ${i}: ${res.status} ${await res.text()}`);
    const acknowledged = performance.now();
    expected += 1;
    const deadline = acknowledged + 30_000;
    while ((await counted(b, source)) < expected) {
      if (performance.now() > deadline) throw new Error(`lag probe ${i}: not counted on B in 30 s`);
      await sleep(LAG_POLL_MS);
    }
    samples.push(performance.now() - acknowledged);
  }
  return samples;
}

async function leads(proc: ServerProcess): Promise<boolean> {
  const res = await keyedFetch(`${proc.url}/metrics`);
  return /^vigil_lease_holder 1$/m.test(await res.text());
}

/** ms from SIGKILL of the leader to the other instance holding the lease. */
async function failover(procs: ServerProcess[]): Promise<{ ms: number; killed: number }> {
  let leader = -1;
  const deadline = Date.now() + 30_000;
  while (leader < 0) {
    for (const [i, proc] of procs.entries()) if (await leads(proc)) leader = i;
    if (leader < 0 && Date.now() > deadline) throw new Error('no instance took the lease in 30 s');
    if (leader < 0) await sleep(100);
  }
  const other = procs[1 - leader] as ServerProcess;
  const killedAt = performance.now();
  (procs[leader] as ServerProcess).signalGroup('SIGKILL');
  while (!(await leads(other))) {
    if (performance.now() - killedAt > 60_000) throw new Error('no take-over in 60 s');
    await sleep(100);
  }
  return { ms: performance.now() - killedAt, killed: leader };
}

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

async function database(): Promise<{ url: string; stop: () => Promise<void> }> {
  const url = process.env.DATABASE_URL;
  if (url !== undefined && url !== '') return { url, stop: async () => {} };
  // Several instances need one PostgreSQL they all reach: an embedded one for this run.
  const dir = await mkdtemp(path.join(tmpdir(), 'vigil-bench-cluster-'));
  await chmod(dir, 0o755);
  const db = await startEmbeddedPostgres(dir, await freePort(), createLogger('warn', 'bench'));
  return {
    url: db.url,
    stop: async () => {
      await db.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<number> {
  if (natsServerPath() === null) {
    out(`bench:cluster needs a NATS server: ${NO_NATS_SERVER}`);
    return 1;
  }
  const loadAtStart = loadAverage();
  const compiled = await buildService();
  const pg = await database();
  const db = externalDatabase(pg.url, { prefix: 'bench' });
  const nats = await startNatsServer();
  const dataRoot = await mkdtemp(path.join(tmpdir(), 'vigil-bench-cluster-data-'));
  const procs: ServerProcess[] = [];
  const spawn = async (id: string, cluster: boolean, port?: number): Promise<ServerProcess> => {
    const proc = await spawnVigil({
      env: {
        ...db.env,
        VIGIL_DATA_DIR: path.join(dataRoot, id),
        ...(cluster ? { NATS_URL: nats.url, VIGIL_INSTANCE_ID: id } : {}),
      },
      inheritEnv: true,
      compiled,
      root: SERVICE_ROOT,
      name: id,
      processGroup: true,
      ...(port === undefined ? {} : { port }),
    });
    procs.push(proc);
    return proc;
  };
  const problems: string[] = [];
  const rows: IngestRow[] = [];
  let lagMs: number[] = [];
  const failovers: number[] = [];
  try {
    const alone = await spawn('alone', false);
    rows.push(await ingest('1 instance, no NATS_URL', [alone]));
    await stopServer(alone, 20_000);
    const a = await spawn('vigil-a', true);
    rows.push(await ingest('1 instance, cluster mode', [a]));
    const b = await spawn('vigil-b', true);
    rows.push(await ingest('2 instances, cluster mode', [a, b]));
    lagMs = await lags(a, b);
    const pair = [a, b];
    for (let i = 0; i < FAILOVERS; i++) {
      const { ms, killed } = await failover(pair);
      failovers.push(ms);
      // The killed instance comes back as itself, on its port, for the next round.
      const old = pair[killed] as ServerProcess;
      await old.exited;
      pair[killed] = await spawn(killed === 0 ? 'vigil-a' : 'vigil-b', true, old.port);
    }
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  } finally {
    for (const proc of procs) await stopServer(proc, 20_000).catch(() => undefined);
    await nats.stop();
    await db.cleanup();
    await pg.stop();
    await rm(dataRoot, { recursive: true, force: true });
  }

  out(
    `## Cluster: POST /api/v1/events c=${CONNECTIONS} in all, median of ${ROUNDS} x ${DURATION} s`,
  );
  out();
  const base = rows[0];
  printTable(
    [
      { title: 'instances' },
      { title: 'req/s', align: 'right' },
      { title: 'p50 ms', align: 'right' },
      { title: 'p99 ms', align: 'right' },
      { title: 'failed', align: 'right' },
      { title: 'to alone', align: 'right' },
    ],
    rows.map((row) => [
      row.name,
      num(row.reqPerSec),
      num(row.p50Ms, 2),
      num(row.p99Ms, 2),
      num(row.failed),
      base === undefined ? '' : `${num(row.reqPerSec / base.reqPerSec, 2)}x`,
    ]),
  );
  out();
  if (lagMs.length > 0) {
    out(
      `Lag from a 202 on A to the event counted in B's GET /api/v1/metrics (${lagMs.length} ` +
        `events one at a time, B polled every ${LAG_POLL_MS} ms): p50 ${num(percentile(lagMs, 50), 1)} ms, ` +
        `p99 ${num(percentile(lagMs, 99), 1)} ms, max ${num(Math.max(...lagMs), 1)} ms.`,
    );
  }
  if (failovers.length > 0) {
    out(
      `Failover: the rule leader killed with SIGKILL, the other instance holding the lease after ` +
        `${failovers.map((ms) => num(ms / 1000, 1)).join(', ')} s (median ${num(median(failovers) / 1000, 1)} s; ` +
        `bound LEASE_TTL_MS + LEASE_RENEW_MS, 6 s by default).`,
    );
  }
  out(
    'The instances, PostgreSQL, NATS and the load generator share the same 2 cores: the second ' +
      "instance adds overhead, not capacity; on separate machines each instance's own cost is what " +
      'the first two rows differ by.',
  );
  out(machineNote(loadAtStart));
  for (const problem of problems) out(`FAIL ${problem}`);
  return problems.length === 0 && rows.every((row) => row.failed === 0) ? 0 : 1;
}

process.exitCode = await main();
