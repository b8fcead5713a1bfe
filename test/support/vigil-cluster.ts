/**
 * Several Vigil processes in cluster mode for the multi-instance tests: one schema of its own on
 * the run's PostgreSQL, one private nats-server (nats-server.ts), and N services (child processes
 * through service-process.ts) sharing both, each with its own VIGIL_INSTANCE_ID, data directory
 * and port. An instance can be killed -9 and restarted as itself (same id, port and directory).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { testDatabaseUrl } from './database.ts';
import { keyHeaders } from './keys.ts';
import t from 'tap';
import { natsServerPath, NO_NATS_SERVER, startNatsServer, type NatsServer } from './nats-server.ts';
import { externalDatabase, type RunDatabase } from './run-databases.ts';
import { spawnVigil, stopServer, type ServerProcess } from './service-process.ts';
import { freePort } from './free-port.ts';

/**
 * The body of a cluster test file: without a nats-server binary the whole file skips, saying in
 * one line how to get one; else a cluster of `size` starts, and stops at the file's teardown.
 */
export async function clusterTestFile(
  size: number,
  run: (cluster: VigilCluster) => Promise<void>,
  env?: Readonly<Record<string, string>>,
): Promise<void> {
  if (natsServerPath() === null) {
    t.plan(0, NO_NATS_SERVER);
    return;
  }
  const cluster = await startVigilCluster({ size, ...(env === undefined ? {} : { env }) });
  t.teardown(() => cluster.stop());
  await run(cluster);
}

export interface VigilCluster {
  readonly nats: NatsServer;
  readonly db: RunDatabase;
  /** The running process of each instance (index = instance number). */
  readonly instances: ServerProcess[];
  readonly ids: readonly string[];
  /** Starts instance `i` again as itself (after a kill), replacing it in `instances`. */
  restart(i: number): Promise<ServerProcess>;
  /** Stops every instance (SIGTERM), the NATS server, and drops the schema. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  readonly size: number;
  /** More service variables for every instance. */
  readonly env?: Readonly<Record<string, string>>;
}

export async function startVigilCluster(options: ClusterOptions): Promise<VigilCluster> {
  const nats = await startNatsServer();
  const db = externalDatabase(testDatabaseUrl(), { prefix: 'clu' });
  const dataRoot = await mkdtemp(path.join(tmpdir(), 'vigil-cluster-'));
  const ids = Array.from({ length: options.size }, (_, i) => `vigil-${i}`);
  const ports = await Promise.all(ids.map(() => freePort()));
  const envOf = (i: number): Record<string, string> => ({
    ...db.env,
    ...options.env,
    NATS_URL: nats.url,
    VIGIL_INSTANCE_ID: ids[i] as string,
    VIGIL_DATA_DIR: path.join(dataRoot, ids[i] as string),
    // Two cores under three services: each keeps one storage thread.
    STORAGE_WORKERS: '1',
  });
  const spawn = (i: number): Promise<ServerProcess> =>
    spawnVigil({
      env: envOf(i),
      port: ports[i],
      name: ids[i],
      readyTimeoutMs: 120_000,
    });
  // Together: the migrations wait for one another (an advisory lock per schema).
  const started = await Promise.allSettled(ids.map((_, i) => spawn(i)));
  const instances = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed !== undefined) {
    for (const proc of instances) proc.signalGroup('SIGKILL');
    await nats.stop();
    await db.cleanup();
    throw failed.reason;
  }
  return {
    nats,
    db,
    instances,
    ids,
    async restart(i) {
      const proc = await spawn(i);
      instances[i] = proc;
      return proc;
    },
    async stop() {
      await Promise.all(instances.map((proc) => stopServer(proc, 20_000)));
      await nats.stop();
      await db.cleanup();
      await rm(dataRoot, { recursive: true, force: true });
    },
  };
}

/** The snapshot's fields the cluster tests read. */
export interface ClusterSnapshot {
  readonly summary: { readonly totalEvents: number };
  readonly eventsBySource: Readonly<Record<string, number>>;
  readonly cluster?: { readonly instances: readonly string[]; readonly complete: boolean };
}

export async function metricsOf(proc: ServerProcess): Promise<ClusterSnapshot> {
  const res = await fetch(`${proc.url}/api/v1/metrics`, { headers: keyHeaders() });
  if (res.status !== 200) throw new Error(`GET /metrics on ${proc.url}: ${res.status}`);
  return (await res.json()) as ClusterSnapshot;
}

/**
 * GET /metrics (Prometheus) of `proc`, parsed with the real parser: the value of each family with
 * one sample and no label (the cluster-mode gauges among them), by name.
 */
export async function gaugesOf(proc: ServerProcess): Promise<Map<string, number>> {
  const res = await fetch(`${proc.url}/metrics`, { headers: keyHeaders() });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics on ${proc.url}: ${res.status} ${text}`);
  const gauges = new Map<string, number>();
  for (const family of parsePrometheusTextFormat(text)) {
    const sample = family.metrics[0];
    if (family.metrics.length !== 1 || sample === undefined || !('value' in sample)) continue;
    if (Object.keys(sample.labels ?? {}).length === 0)
      gauges.set(family.name, Number(sample.value));
  }
  return gauges;
}

/** Posts `count` events in one batch request to `proc`; answers how many were accepted (202). */
export async function postBatch(
  proc: ServerProcess,
  tag: string,
  from: number,
  count: number,
): Promise<number> {
  const events = Array.from({ length: count }, (_, k) => ({
    eventType: `cluster.${(from + k) % 5}`,
    source: tag,
    userId: `user-${(from + k) % 50}`,
    severity: (from + k) % 10 === 0 ? 'ERROR' : 'INFO',
  }));
  const res = await fetch(`${proc.url}/api/v1/events/batch`, {
    method: 'POST',
    headers: { ...keyHeaders(), 'content-type': 'application/json' },
    body: JSON.stringify(events),
  });
  const body = (await res.json()) as { accepted?: number };
  if (res.status !== 202) throw new Error(`POST batch to ${proc.url}: ${res.status}`);
  return body.accepted ?? 0;
}

/** Events of `tag` really stored (the truth every instance must converge to). */
export async function storedCount(db: RunDatabase, tag: string): Promise<number> {
  const rows = await db.sql<
    { n: string }[]
  >`SELECT count(*) AS n FROM events WHERE source = ${tag}`;
  return Number(rows[0]?.n ?? 0);
}

/**
 * Polls until `check` answers null (met) or the deadline passes; then throws with its last answer
 * (what was still wrong). No assertion on time: the deadline only bounds a test that would hang.
 */
export async function waitUntil(
  what: string,
  check: () => Promise<string | null>,
  deadlineMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  let last: string | null = 'not checked yet';
  while (Date.now() < deadline) {
    try {
      last = await check();
    } catch (error) {
      last = (error as Error).message;
    }
    if (last === null) return;
    await sleep(250);
  }
  throw new Error(`${what}: still not so after ${deadlineMs} ms: ${last}`);
}

/**
 * null when every listed instance counts exactly `expected` events of `tag` and says its view is
 * complete over every instance id in `ids`; else what differs.
 */
export async function convergedOn(
  procs: readonly ServerProcess[],
  tag: string,
  expected: number,
  ids: readonly string[],
): Promise<string | null> {
  const seen = await Promise.all(procs.map((proc) => metricsOf(proc)));
  const wrong = seen
    .map((snapshot, i) => {
      const counted = snapshot.eventsBySource[tag] ?? 0;
      const view = snapshot.cluster;
      const complete = view?.complete === true && ids.every((id) => view.instances.includes(id));
      return counted === expected && complete
        ? null
        : `#${i} counts ${counted}/${expected}, view ${JSON.stringify(view)}`;
    })
    .filter((line) => line !== null);
  return wrong.length === 0 ? null : wrong.join('; ');
}

/** POST /api/v1/metrics/reset on `proc` with the admin key; throws unless it answers 200. */
export async function resetMetricsOn(proc: ServerProcess): Promise<void> {
  const res = await fetch(`${proc.url}/api/v1/metrics/reset`, {
    method: 'POST',
    headers: keyHeaders(),
  });
  const text = await res.text();
  if (res.status !== 200)
    throw new Error(`POST /metrics/reset on ${proc.url}: ${res.status} ${text}`);
}

/** null when every listed instance counts exactly `expected` events in all; else which do not. */
export async function everyTotalIs(
  procs: readonly ServerProcess[],
  expected: number,
): Promise<string | null> {
  const seen = await Promise.all(procs.map((proc) => metricsOf(proc)));
  const wrong = seen
    .map(({ summary }, i) =>
      summary.totalEvents === expected ? null : `#${i} counts ${summary.totalEvents}/${expected}`,
    )
    .filter((line) => line !== null);
  return wrong.length === 0 ? null : wrong.join('; ');
}
