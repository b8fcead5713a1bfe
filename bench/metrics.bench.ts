/**
 * `npm run bench:metrics`: GET /api/v1/metrics alone and under a paced 5,000 events/s ingest, RSS
 * after 2M events, and the floor: part b's load against a bare uWS server that stores nothing and
 * serves a fixed snapshot. The STOMP fan-out, once part c here, is `npm run bench:fanout`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import {
  ingestBatchKnob,
  ingestConnectionsKnob,
  ingestRequestsText,
  ingestSpreadKnobs,
  intKnob,
} from './harness/knobs.ts';
import { num, printTable } from './report/print-table.ts';
import { profileDirFor, summariseProfiles } from './report/profile-summary.ts';
import { runRawGet, type RawGetSummary } from './load-generators/raw-get.ts';
import { log, runLoad, type LoadSummary } from './load-generators/run-load.ts';
import { keyedFetch } from './load-generators/client-key.ts';
import { startBareCeiling, startService, type BenchService } from './harness/bench-service.ts';
import { errorText, loadAverage, machineNote, out, serviceNote } from './report/bench-notes.ts';
import { eventStream, type EventSpread } from './load-generators/event-mix.ts';
import {
  startPacedIngest,
  windowRate,
  type PacedDone,
  type WindowRate,
} from './load-generators/paced-ingest.ts';
import { processMemory, type ProcessMemory } from './report/proc-status.ts';
import { measureSchedShare, type SchedShare } from './report/thread-cpu.ts';
import {
  readSummary,
  seedBatches,
  metricsGetScenario,
  waitForTotal,
  type SeedResult,
  type SnapshotSummary,
} from './load-generators/service-calls.ts';
import { LOAD_COLUMNS, loadRow } from './report/load-table.ts';

// Knobs (env). Rounds: ROUNDS, DURATION (s, GET rounds), WARMUP (s), GET_CONNECTIONS.
// Paced ingest (b): INGEST_RATE (events/s), INGEST_BATCH (events per request), INGEST_CONNECTIONS,
// INGEST_TYPES, INGEST_SOURCES, INGEST_USERS.
// Memory (d): MEMORY_EVENTS, MEMORY_USERS, MEMORY_TYPES, SEED_BATCH, SEED_CONNECTIONS.
// Floor (e): part b's ingest and GET clients against bench/harness/bare-ceiling.ts serving the
// service's snapshot as it was after parts a-b (without b, SNAPSHOT_SEED events over INGEST_TYPES
// types are stored first, so the snapshot names all the types it would after part b).
// PARTS=abde picks parts (c, the fan-out, is bench:fanout); PROFILE=1 profiles the service of
// parts a, b; service variables pass through.
const ROUNDS = intKnob('ROUNDS', 3);
const DURATION = intKnob('DURATION', 10);
const WARMUP = intKnob('WARMUP', 3, 0);
const GET_CONNECTIONS = intKnob('GET_CONNECTIONS', 10);
const INGEST_RATE = intKnob('INGEST_RATE', 5000);
const INGEST_CONNECTIONS = ingestConnectionsKnob();
const INGEST_BATCH = ingestBatchKnob();
const SPREAD: EventSpread = ingestSpreadKnobs();
const SNAPSHOT_SEED = intKnob('SNAPSHOT_SEED', 20_000, 0);
const MEMORY_EVENTS = intKnob('MEMORY_EVENTS', 2_000_000);
const MEMORY_SPREAD: EventSpread = {
  types: intKnob('MEMORY_TYPES', 10_000),
  sources: intKnob('INGEST_SOURCES', 200),
  users: intKnob('MEMORY_USERS', 1_000_000),
};
const SEED_BATCH = intKnob('SEED_BATCH', 1000);
const SEED_CONNECTIONS = intKnob('SEED_CONNECTIONS', 4);
const PARTS = process.env.PARTS ?? 'abde';

const TARGET_GET_P99_MS = 2;
const SPEC_GET_P99_MS = 10;
const TARGET_RSS_MB = 512;

const rounds = { rounds: ROUNDS, durationSec: DURATION, warmupSec: WARMUP };

/**
 * The GET client: autocannon (the reference), and a lean raw-socket client that never decodes the
 * 100 KB bodies, so that less of the 2 shared cores goes to the generator (bench/load-generators/raw-get.ts).
 */
type Client = 'autocannon' | 'lean client' | 'lean client, gzip';
const CLIENTS: readonly Client[] = ['autocannon', 'lean client', 'lean client, gzip'];

/** What the GET rounds run against: the service, or the floor's bare server. */
type GetTarget = Pick<BenchService, 'url' | 'pid'>;

const getMetrics = (
  service: GetTarget,
  name: string,
  client: Client,
): Promise<LoadSummary | RawGetSummary> =>
  client === 'autocannon'
    ? runLoad(metricsGetScenario(`${name}, autocannon`, service.url, GET_CONNECTIONS), rounds)
    : runRawGet(
        `${name}, ${client}`,
        {
          port: Number(new URL(service.url).port),
          path: '/api/v1/metrics',
          connections: GET_CONNECTIONS,
          gzip: client === 'lean client, gzip',
        },
        rounds,
      );

interface GetRead {
  readonly get: LoadSummary;
  /** The front thread over the client's whole run (its start, warm-up and rounds). */
  readonly front: SchedShare | null;
  /** The lean client's own wait for a CPU, % of its rounds (null: autocannon, or no schedstat). */
  readonly clientWaiting: number | null;
}

const measuredGet = async (service: GetTarget, name: string, client: Client): Promise<GetRead> => {
  const { result, share } = await measureSchedShare(service.pid, () =>
    getMetrics(service, name, client),
  );
  const clientWaiting = 'waitingPercent' in result ? result.waitingPercent : null;
  return { get: result, front: share, clientWaiting };
};

/** Part a: the GET rounds with no ingest, once per client. */
async function getAlone(service: BenchService): Promise<GetRead[]> {
  const reads: GetRead[] = [];
  for (const client of CLIENTS)
    reads.push(await measuredGet(service, `GET /metrics c=${GET_CONNECTIONS}, no ingest`, client));
  return reads;
}

interface PacedRead extends GetRead {
  readonly ingest: WindowRate;
}

interface PacedRun {
  readonly reads: PacedRead[];
  readonly done: PacedDone;
}

/**
 * (b, e) GET rounds, once per client, while the paced generator (its own process) ingests at
 * INGEST_RATE; `label` prefixes the scenario names.
 */
async function getUnderIngest(service: GetTarget, label = ''): Promise<PacedRun> {
  const port = Number(new URL(service.url).port);
  const paced = await startPacedIngest({
    port,
    rate: INGEST_RATE,
    batch: INGEST_BATCH,
    connections: INGEST_CONNECTIONS,
    maxSec: 60 + (WARMUP + ROUNDS * (DURATION + 2)) * 2 * CLIENTS.length,
    spread: SPREAD,
    seed: 0x5eed,
  });
  try {
    log(`paced ingest (pid ${paced.pid}) at ${num(INGEST_RATE)} events/s; settling 3 s`);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const reads: PacedRead[] = [];
    for (const client of CLIENTS) {
      const from = await paced.counters();
      const read = await measuredGet(
        service,
        `${label}GET /metrics c=${GET_CONNECTIONS}, ingest ${num(INGEST_RATE)}/s`,
        client,
      );
      const to = await paced.counters();
      const ingest = windowRate(from, to);
      log(
        `${label}paced ingest during the ${client} GET rounds: ${num(ingest.okPerSec)} events/s acknowledged`,
      );
      reads.push({ ...read, ingest });
    }
    return { reads, done: await paced.stop() };
  } finally {
    await paced.stop().catch(() => undefined);
  }
}

const FLOOR_LABEL = 'bare uWS floor: ';

/**
 * (e) Saves the service's snapshot (seeding it first when part b stored no events), for the floor
 * to serve the same bytes.
 */
async function saveSnapshot(service: BenchService, dir: string): Promise<string> {
  if (!PARTS.includes('b')) {
    await seedBatches(
      service.url,
      SNAPSHOT_SEED,
      SEED_BATCH,
      SEED_CONNECTIONS,
      eventStream(SPREAD, 0x5eed),
    );
    await waitForTotal(service.url, SNAPSHOT_SEED, 30_000);
  }
  const response = await keyedFetch(`${service.url}/api/v1/metrics`);
  if (response.status !== 200) throw new Error(`GET /api/v1/metrics answered ${response.status}`);
  const file = path.join(dir, 'snapshot.json');
  await writeFile(file, Buffer.from(await response.arrayBuffer()));
  return file;
}

/** (e) Part b's load against the bare uWS server: no storage, no actor, the same snapshot bytes. */
async function floor(snapshotFile: string): Promise<PacedRun> {
  const bare = await startBareCeiling({ SNAPSHOT_FILE: snapshotFile });
  try {
    log(`bare uWS floor pid ${bare.pid}, ${bare.url}`);
    return await getUnderIngest(bare, FLOOR_LABEL);
  } finally {
    await bare.stop();
  }
}

interface MemoryResult {
  readonly before: ProcessMemory;
  readonly after: ProcessMemory;
  readonly seed: SeedResult;
  readonly summary: SnapshotSummary;
}

/** (d) A fresh service: RSS before and after MEMORY_EVENTS events through the batch endpoint. */
async function memory(): Promise<MemoryResult> {
  const service = await startService();
  try {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const before = await processMemory(service.pid);
    log(
      `memory: service pid ${service.pid} RSS ${num(before.rssMb)} MB at start; seeding ${num(MEMORY_EVENTS)} events`,
    );
    const seed = await seedBatches(
      service.url,
      MEMORY_EVENTS,
      SEED_BATCH,
      SEED_CONNECTIONS,
      eventStream(MEMORY_SPREAD, 0x3e3),
    );
    const summary = await waitForTotal(service.url, MEMORY_EVENTS, 30_000);
    // Two refresh periods more, so the snapshot built from the full state is the one in memory.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = await processMemory(service.pid);
    return { before, after, seed, summary };
  } finally {
    await service.stop();
  }
}

async function main(): Promise<number> {
  const loadAtStart = loadAverage();
  const started = Date.now();
  const problems: string[] = [];
  log(`metrics bench: parts ${PARTS}; load average at start ${loadAtStart}`);
  if (PARTS.includes('c'))
    log('part c (the STOMP fan-out) is its own bench now: npm run bench:fanout');
  const config = loadConfig(process.env);

  let alone: GetRead[] = [];
  let paced: PacedRun | null = null;
  let floorRun: PacedRun | null = null;
  const snapshotDir = await mkdtemp(path.join(tmpdir(), 'vigil-floor-'));
  let snapshotFile: string | null = null;
  let mem: MemoryResult | null = null;
  const profileDir = profileDirFor('metrics');
  if (/[abe]/.test(PARTS)) {
    const service = await startService(profileDir === undefined ? {} : { profileDir });
    try {
      log(`service pid ${service.pid}, ${service.url}`);
      if (PARTS.includes('a')) alone = await getAlone(service);
      if (PARTS.includes('b')) paced = await getUnderIngest(service);
      if (PARTS.includes('e')) snapshotFile = await saveSnapshot(service, snapshotDir);
      const summary = await readSummary(service.url);
      log(
        `snapshot now: ${num(summary.totalEvents)} events, ${num(summary.uniqueEventTypes)} types`,
      );
    } finally {
      await service.stop().catch((error: unknown) => problems.push(errorText(error)));
    }
  }
  try {
    if (snapshotFile !== null) floorRun = await floor(snapshotFile);
  } finally {
    await rm(snapshotDir, { recursive: true, force: true });
  }
  if (PARTS.includes('d')) mem = await memory();

  const note = machineNote(loadAtStart);
  const pacedRuns = [paced, floorRun].filter((run): run is PacedRun => run !== null);
  const pacedReads = pacedRuns.flatMap((run) => run.reads);
  if (alone.length > 0 || pacedRuns.length > 0) {
    out(`## GET /api/v1/metrics, c=${GET_CONNECTIONS}, median of ${ROUNDS} x ${DURATION} s`);
    out();
    const rows: string[][] = [];
    const frontShare = ({ front }: GetRead): string =>
      front === null ? '–' : `${num(front.onCpuPercent)} / ${num(front.waitingPercent)}`;
    const clientWaiting = ({ clientWaiting }: GetRead): string =>
      clientWaiting === null ? '–' : num(clientWaiting);
    for (const read of alone)
      rows.push(loadRow(read.get, ['–', '–', frontShare(read), clientWaiting(read)]));
    for (const read of pacedReads) {
      rows.push(
        loadRow(read.get, [
          `${num(read.ingest.okPerSec)} of ${num(INGEST_RATE)}`,
          `${read.ingest.non2xx + read.ingest.errors} / ${read.ingest.dropped}`,
          frontShare(read),
          clientWaiting(read),
        ]),
      );
    }
    printTable(
      [
        ...LOAD_COLUMNS,
        { title: 'ingest events/s', align: 'right' },
        { title: 'ingest failed / dropped', align: 'right' },
        { title: 'front on CPU / waiting %', align: 'right' },
        { title: 'GET client waiting %', align: 'right' },
      ],
      rows,
    );
    out();
    out(
      `Ingest (b): a second load generator in its own process, ${ingestRequestsText(INGEST_BATCH)} at a fixed ` +
        `${num(INGEST_RATE)} events/s (open loop, ${INGEST_CONNECTIONS} keep-alive connections) over ` +
        `${num(SPREAD.types)} types, ${num(SPREAD.sources)} sources, ${num(SPREAD.users)} users; ` +
        `events/s = events acknowledged (202) per second during the GET rounds.` +
        (paced === null
          ? ''
          : ` Ingest latency over the whole run p50 ${num(paced.done.p50Ms, 2)} / p99 ` +
            `${num(paced.done.p99Ms, 2)} ms; generator CPU ${num(paced.done.cpuPercent)} % of a core.`),
    );
    if (floorRun !== null) {
      out(
        'Floor (e): the same ingest and GET clients against a bare uWS server in one thread ' +
          '(bench/harness/bare-ceiling.ts) that parses and acknowledges each event without storing ' +
          "it and serves the service's snapshot bytes as they were after the rounds above (gzipped " +
          'once, level 1): no storage workers, no metrics actor, no PostgreSQL. What it measures is ' +
          'what these 2 shared cores give with the load generators on them; Vigil cannot do better. ' +
          `Its ingest latency p50 ${num(floorRun.done.p50Ms, 2)} / p99 ${num(floorRun.done.p99Ms, 2)} ms.`,
      );
    }
    out(
      'autocannon decodes every ~100 KB answer into a string; the lean client (raw sockets, ' +
        'same c, closed loop) only frames it by Content-Length. On 2 shared cores the difference ' +
        'in generator CPU goes to the service. gzip: the lean client sends `Accept-Encoding: gzip` ' +
        'as browsers do, and gets the snapshot the actor compressed once.',
    );
    out(
      'Front on CPU / waiting: the front thread (which answers every request) on a CPU, and ' +
        "runnable but waiting for one, in % of the wall time of that client's whole run (start, " +
        "warm-up and rounds; the scheduler's own counts, /proc/<pid>/task/<tid>/schedstat). A " +
        'request that arrives while the front thread waits for a core waits with it. GET client ' +
        "waiting: the same wait for the lean client's own thread during its rounds, which its " +
        'latency figures include.',
    );
    for (const read of pacedReads) {
      const p99 = read.get.p99Ms;
      out(
        `${read.get.name}: GET p99 ${num(p99, 2)} ms: target < ${TARGET_GET_P99_MS} ms ` +
          `${p99 < TARGET_GET_P99_MS ? 'met' : 'MISSED'}; spec < ${SPEC_GET_P99_MS} ms ` +
          `${p99 < SPEC_GET_P99_MS ? 'met' : 'MISSED'}.`,
      );
    }
    out(note);
    out();
  }
  if (mem !== null) {
    out(
      `## Memory: ${num(MEMORY_EVENTS)} events over ${num(MEMORY_SPREAD.users)} users, ` +
        `${num(MEMORY_SPREAD.types)} types, ${num(MEMORY_SPREAD.sources)} sources (fresh service)`,
    );
    out();
    printTable(
      [
        { title: 'service process' },
        { title: 'RSS MB', align: 'right' },
        { title: 'peak RSS MB', align: 'right' },
        { title: 'snapshot totalEvents', align: 'right' },
        { title: 'uniqueUsers', align: 'right' },
        { title: 'uniqueEventTypes', align: 'right' },
      ],
      [
        ['at start', num(mem.before.rssMb), num(mem.before.peakRssMb), '0', '0', '0'],
        [
          `after ${num(MEMORY_EVENTS)} events`,
          num(mem.after.rssMb),
          num(mem.after.peakRssMb),
          num(mem.summary.totalEvents),
          num(mem.summary.uniqueUsers),
          num(mem.summary.uniqueEventTypes),
        ],
      ],
    );
    out();
    out(
      `Seeded with POST /api/v1/events/batch (${num(SEED_BATCH)} per batch, ${SEED_CONNECTIONS} concurrent) in ` +
        `${num(mem.seed.seconds, 1)} s (${num(MEMORY_EVENTS / mem.seed.seconds)} events/s; retried ${mem.seed.retried}).`,
    );
    out(
      `RSS = VmRSS of the service process (front thread, storage workers and metrics actor; the embedded ` +
        `PostgreSQL is a separate process, not counted). The metrics actor's heap is not exposed by the ` +
        `service: RSS is the figure. Target RSS < ${TARGET_RSS_MB} MB: ` +
        `${mem.after.rssMb < TARGET_RSS_MB ? 'met' : 'MISSED'}.`,
    );
    out(
      `Caps in force: METRICS_MAX_EVENT_TYPES=${config.METRICS_MAX_EVENT_TYPES} ` +
        `METRICS_MAX_SOURCES=${config.METRICS_MAX_SOURCES} ` +
        `METRICS_MAX_TRACKED_USERS=${config.METRICS_MAX_TRACKED_USERS}; fixed: 1000 latency samples per ` +
        `scope, 1440 minute buckets, 3600 second counts, 100,000 remembered keys per map.`,
    );
    out(note);
    out();
  }
  out(serviceNote(config, started));
  if (profileDir !== undefined) {
    out();
    out(`CPU profiles (service of parts a, b, e) in ${profileDir}:`);
    out(await summariseProfiles(profileDir));
  }

  const reads = [...alone, ...pacedReads].map((r) => r.get);
  for (const s of reads) {
    if (s.non2xx > 0 || s.errors > 0) {
      problems.push(`${s.name}: ${s.non2xx} non-2xx, ${s.errors} errors`);
    }
  }
  for (const { done } of pacedRuns) {
    if (done.non2xx + done.errors > 0) {
      problems.push(
        `paced ingest: ${done.non2xx} non-2xx ${JSON.stringify(done.statuses)}, ` +
          `${done.errors} errors ${done.lastError}`,
      );
    }
  }
  for (const problem of problems) out(`FAIL ${problem}`);
  return problems.length === 0 ? 0 : 1;
}

process.exitCode = await main();
