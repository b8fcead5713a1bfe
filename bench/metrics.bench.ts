/**
 * `npm run bench:metrics`: GET /api/v1/metrics alone and under a paced 5,000 events/s ingest, STOMP
 * fan-out to 1,000 /topic/metrics sessions (tick spread, ingest cost), and RSS after 2M events.
 */
import { loadConfig } from '../src/config.ts';
import { intKnob } from './support/knobs.ts';
import { num, printTable } from './support/print-table.ts';
import { profileDirFor, summariseProfiles } from './support/profile-summary.ts';
import { log, runLoad, type LoadRequest, type LoadSummary } from './support/run-load.ts';
import { startService, type BenchService } from './support/start-service.ts';
import { errorText, loadAverage, machineNote, out } from './load/bench-notes.ts';
import { eventStream, type EventSpread } from './load/event-mix.ts';
import {
  startPacedIngest,
  windowRate,
  type PacedDone,
  type WindowRate,
} from './load/paced-ingest.ts';
import { processMemory, type ProcessMemory } from './load/proc-status.ts';
import {
  readSummary,
  seedBatches,
  verifySnapshot,
  waitForTotal,
  type SeedResult,
  type SnapshotSummary,
} from './load/service-calls.ts';
import {
  startSubscribers,
  summariseSpreads,
  type SpreadSummary,
  type SubscribersWindow,
} from './load/stomp-subscribers.ts';

// Knobs (env). Rounds: ROUNDS, DURATION (s, GET rounds), WARMUP (s), GET_CONNECTIONS.
// Paced ingest (b): INGEST_RATE, INGEST_CONNECTIONS, INGEST_TYPES, INGEST_SOURCES, INGEST_USERS.
// Fan-out (c): FANOUT_SESSIONS, FANOUT_CONNECTIONS (autocannon c), FANOUT_DURATION (s), FANOUT_IDLE (s).
// Memory (d): MEMORY_EVENTS, MEMORY_USERS, MEMORY_TYPES, SEED_BATCH, SEED_CONNECTIONS.
// PARTS=abcd picks parts; PROFILE=1 profiles the service of parts a-c; service variables pass through.
const ROUNDS = intKnob('ROUNDS', 3);
const DURATION = intKnob('DURATION', 10);
const WARMUP = intKnob('WARMUP', 3, 0);
const GET_CONNECTIONS = intKnob('GET_CONNECTIONS', 10);
const INGEST_RATE = intKnob('INGEST_RATE', 5000);
const INGEST_CONNECTIONS = intKnob('INGEST_CONNECTIONS', 32);
const SPREAD: EventSpread = {
  types: intKnob('INGEST_TYPES', 1000),
  sources: intKnob('INGEST_SOURCES', 200),
  users: intKnob('INGEST_USERS', 100_000),
};
const FANOUT_SESSIONS = intKnob('FANOUT_SESSIONS', 1000);
const FANOUT_CONNECTIONS = intKnob('FANOUT_CONNECTIONS', 50);
const FANOUT_DURATION = intKnob('FANOUT_DURATION', 10);
const FANOUT_IDLE = intKnob('FANOUT_IDLE', 10);
const MEMORY_EVENTS = intKnob('MEMORY_EVENTS', 2_000_000);
const MEMORY_SPREAD: EventSpread = {
  types: intKnob('MEMORY_TYPES', 10_000),
  sources: intKnob('INGEST_SOURCES', 200),
  users: intKnob('MEMORY_USERS', 1_000_000),
};
const SEED_BATCH = intKnob('SEED_BATCH', 1000);
const SEED_CONNECTIONS = intKnob('SEED_CONNECTIONS', 4);
const PARTS = process.env.PARTS ?? 'abcd';

const TARGET_GET_P99_MS = 2;
const SPEC_GET_P99_MS = 10;
const TARGET_SPREAD_MS = 100;
const TARGET_DROP = 0.1;
const TARGET_RSS_MB = 512;
/** Distinct bodies the c=50 ingest of part c cycles through. */
const FANOUT_BODIES = 1000;

const rounds = { rounds: ROUNDS, durationSec: DURATION, warmupSec: WARMUP };

const getMetrics = (service: BenchService, name: string): Promise<LoadSummary> =>
  runLoad(
    {
      name,
      baseUrl: service.url,
      requests: [{ method: 'GET', path: '/api/v1/metrics' }],
      connections: GET_CONNECTIONS,
      pipelining: 1,
      expectedStatus: 200,
      verify: verifySnapshot,
    },
    rounds,
  );

interface PacedRead {
  readonly get: LoadSummary;
  readonly ingest: WindowRate;
  readonly done: PacedDone;
}

/** (b) GET rounds while the paced generator (its own process) ingests at INGEST_RATE. */
async function getUnderIngest(service: BenchService): Promise<PacedRead> {
  const port = Number(new URL(service.url).port);
  const paced = await startPacedIngest({
    port,
    path: '/api/v1/events',
    rate: INGEST_RATE,
    connections: INGEST_CONNECTIONS,
    maxSec: 60 + (WARMUP + ROUNDS * (DURATION + 2)) * 2,
    spread: SPREAD,
    seed: 0x5eed,
  });
  try {
    log(`paced ingest (pid ${paced.pid}) at ${num(INGEST_RATE)} events/s; settling 3 s`);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const from = await paced.counters();
    const get = await getMetrics(
      service,
      `GET /metrics c=${GET_CONNECTIONS}, ingest ${num(INGEST_RATE)}/s`,
    );
    const to = await paced.counters();
    const ingest = windowRate(from, to);
    log(`paced ingest during the GET rounds: ${num(ingest.okPerSec)} events/s acknowledged`);
    return { get, ingest, done: await paced.stop() };
  } finally {
    await paced.stop().catch(() => undefined);
  }
}

interface Fanout {
  readonly without: LoadSummary;
  readonly with: LoadSummary;
  readonly idle: SpreadSummary;
  readonly busy: SpreadSummary;
  readonly idleWindow: SubscribersWindow;
  readonly busyWindow: SubscribersWindow;
  readonly openMs: number;
  readonly sessions: number;
}

const ingestLoad = (service: BenchService, name: string): Promise<LoadSummary> => {
  const next = eventStream(SPREAD, 0xfa17);
  const requests: LoadRequest[] = Array.from({ length: FANOUT_BODIES }, () => ({
    method: 'POST',
    path: '/api/v1/events',
    body: JSON.stringify(next()),
  }));
  return runLoad(
    {
      name,
      baseUrl: service.url,
      requests,
      connections: FANOUT_CONNECTIONS,
      pipelining: 1,
      expectedStatus: 202,
    },
    { rounds: ROUNDS, durationSec: FANOUT_DURATION, warmupSec: WARMUP },
  );
};

/** (c) Ingest c=50 without, then with FANOUT_SESSIONS subscribers (their own process). */
async function fanout(service: BenchService): Promise<Fanout> {
  const without = await ingestLoad(service, `ingest c=${FANOUT_CONNECTIONS}, no subscribers`);
  const wsUrl = `${service.url.replace(/^http/, 'ws')}/ws`;
  log(`opening ${num(FANOUT_SESSIONS)} STOMP sessions`);
  const subscribers = await startSubscribers({
    url: wsUrl,
    sessions: FANOUT_SESSIONS,
    openConcurrency: 50,
  });
  try {
    log(
      `${num(subscribers.ready.sessions)} sessions subscribed in ${num(subscribers.ready.openMs)} ms`,
    );
    subscribers.windowStart();
    await new Promise((resolve) => setTimeout(resolve, FANOUT_IDLE * 1000));
    const idleWindow = await subscribers.windowEnd(1500);
    subscribers.windowStart();
    const withSubs = await ingestLoad(
      service,
      `ingest c=${FANOUT_CONNECTIONS}, ${num(FANOUT_SESSIONS)} subscribers`,
    );
    const busyWindow = await subscribers.windowEnd(1500);
    return {
      without,
      with: withSubs,
      idle: summariseSpreads(idleWindow, FANOUT_SESSIONS, TARGET_SPREAD_MS),
      busy: summariseSpreads(busyWindow, FANOUT_SESSIONS, TARGET_SPREAD_MS),
      idleWindow,
      busyWindow,
      openMs: subscribers.ready.openMs,
      sessions: subscribers.ready.sessions,
    };
  } finally {
    await subscribers.close();
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

const loadRow = (s: LoadSummary, extra: readonly string[] = []): string[] => [
  s.name,
  String(s.connections),
  num(s.reqPerSec),
  num(s.p50Ms, 2),
  num(s.p99Ms, 2),
  String(s.non2xx),
  String(s.errors),
  ...extra,
];

const LOAD_COLUMNS = [
  { title: 'scenario' },
  { title: 'c', align: 'right' },
  { title: 'req/s', align: 'right' },
  { title: 'p50 ms', align: 'right' },
  { title: 'p99 ms', align: 'right' },
  { title: 'non-2xx', align: 'right' },
  { title: 'errors', align: 'right' },
] as const;

async function main(): Promise<number> {
  const loadAtStart = loadAverage();
  const started = Date.now();
  const problems: string[] = [];
  log(`metrics bench: parts ${PARTS}; load average at start ${loadAtStart}`);
  const config = loadConfig(process.env);

  let alone: LoadSummary | null = null;
  let paced: PacedRead | null = null;
  let fan: Fanout | null = null;
  let mem: MemoryResult | null = null;
  const profileDir = profileDirFor('metrics');
  if (/[abc]/.test(PARTS)) {
    const service = await startService(profileDir === undefined ? {} : { profileDir });
    try {
      log(`service pid ${service.pid}, ${service.url}`);
      if (PARTS.includes('a'))
        alone = await getMetrics(service, `GET /metrics c=${GET_CONNECTIONS}, no ingest`);
      if (PARTS.includes('b')) paced = await getUnderIngest(service);
      if (PARTS.includes('c')) fan = await fanout(service);
      const summary = await readSummary(service.url);
      log(
        `snapshot now: ${num(summary.totalEvents)} events, ${num(summary.uniqueEventTypes)} types`,
      );
    } finally {
      await service.stop().catch((error: unknown) => problems.push(errorText(error)));
    }
  }
  if (PARTS.includes('d')) mem = await memory();

  const note = machineNote(loadAtStart);
  if (alone !== null || paced !== null) {
    out(`## GET /api/v1/metrics, c=${GET_CONNECTIONS}, median of ${ROUNDS} x ${DURATION} s`);
    out();
    const rows: string[][] = [];
    if (alone !== null) rows.push(loadRow(alone, ['–', '–', '–']));
    if (paced !== null) {
      rows.push(
        loadRow(paced.get, [
          `${num(paced.ingest.okPerSec)} of ${num(INGEST_RATE)}`,
          `${num(paced.done.p50Ms, 2)} / ${num(paced.done.p99Ms, 2)}`,
          `${paced.done.non2xx + paced.done.errors} / ${paced.done.dropped}`,
        ]),
      );
    }
    printTable(
      [
        ...LOAD_COLUMNS,
        { title: 'ingest events/s', align: 'right' },
        { title: 'ingest p50 / p99 ms', align: 'right' },
        { title: 'ingest failed / dropped', align: 'right' },
      ],
      rows,
    );
    out();
    out(
      `Ingest (b): a second load generator in its own process, POST /api/v1/events at a fixed ` +
        `${num(INGEST_RATE)} events/s (open loop, ${INGEST_CONNECTIONS} keep-alive connections) over ` +
        `${num(SPREAD.types)} types, ${num(SPREAD.sources)} sources, ${num(SPREAD.users)} users; ` +
        `events/s = 202 answers per second during the GET rounds.` +
        (paced === null ? '' : ` Generator CPU ${num(paced.done.cpuPercent)} % of a core.`),
    );
    if (paced !== null) {
      const p99 = paced.get.p99Ms;
      out(
        `GET p99 under ingest: ${num(p99, 2)} ms: target < ${TARGET_GET_P99_MS} ms ` +
          `${p99 < TARGET_GET_P99_MS ? 'met' : 'MISSED'}; spec < ${SPEC_GET_P99_MS} ms ` +
          `${p99 < SPEC_GET_P99_MS ? 'met' : 'MISSED'}.`,
      );
    }
    out(note);
    out();
  }
  if (fan !== null) {
    out(`## STOMP fan-out: ${num(fan.sessions)} sessions on /topic/metrics (one process, raw ws)`);
    out();
    const spreadRow = (name: string, s: SpreadSummary, w: SubscribersWindow): string[] => [
      name,
      String(s.ticks),
      `${s.minReceivers === Infinity ? 0 : s.minReceivers} / ${fan?.sessions ?? 0}`,
      num(s.p50Ms, 1),
      num(s.p99Ms, 1),
      num(s.maxMs, 1),
      `${s.ticksOnTime} / ${s.ticks}`,
      num(s.snapshotBytes),
      num((w.cpuPercent / 100) * (w.windowMs / Math.max(1, s.ticks)), 1),
      String(Object.values(w.closes).reduce((a, b) => a + b, 0) + w.errorFrames),
    ];
    printTable(
      [
        { title: 'ticks measured while' },
        { title: 'ticks', align: 'right' },
        { title: 'min receivers', align: 'right' },
        { title: 'spread p50 ms', align: 'right' },
        { title: 'p99 ms', align: 'right' },
        { title: 'max ms', align: 'right' },
        { title: `all within ${TARGET_SPREAD_MS} ms`, align: 'right' },
        { title: 'snapshot bytes', align: 'right' },
        { title: 'subscriber CPU ms/tick', align: 'right' },
        { title: 'closed / ERROR', align: 'right' },
      ],
      [
        spreadRow(`idle, ${FANOUT_IDLE} s`, fan.idle, fan.idleWindow),
        spreadRow(`ingest c=${FANOUT_CONNECTIONS}`, fan.busy, fan.busyWindow),
      ],
    );
    out();
    const drop = 1 - fan.with.reqPerSec / fan.without.reqPerSec;
    printTable(
      [...LOAD_COLUMNS, { title: 'change', align: 'right' }],
      [loadRow(fan.without, ['–']), loadRow(fan.with, [`${num(-100 * drop, 1)} %`])],
    );
    out();
    out(
      `Spread = last minus first session receiving a tick, as timestamped by the subscriber process ` +
        `(a tick is told by its snapshot content; message-id is per session). Sessions opened in ` +
        `${num(fan.openMs)} ms. The subscriber process handles the sessions one after another, so up ` +
        `to its CPU per tick (column) of a spread is its own work, not the service's. Ingest: autocannon c=${FANOUT_CONNECTIONS}, median of ${ROUNDS} x ${FANOUT_DURATION} s.`,
    );
    const late = fan.busy.ticks - fan.busy.ticksOnTime + fan.idle.ticks - fan.idle.ticksOnTime;
    out(
      `Targets: every tick to all sessions within ${TARGET_SPREAD_MS} ms ${late === 0 ? 'met' : `MISSED (${late} ticks)`}; ` +
        `ingest drop < ${100 * TARGET_DROP} % ${drop < TARGET_DROP ? 'met' : 'MISSED'} (${num(100 * drop, 1)} %).`,
    );
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
  out(
    `Service: STORAGE_WORKERS=${config.STORAGE_WORKERS} METRICS_REFRESH_MS=${config.METRICS_REFRESH_MS} ` +
      `METRICS_BROADCAST_MS=${config.METRICS_BROADCAST_MS} RULE_EVALUATION_MS=${config.RULE_EVALUATION_MS}; ` +
      `total bench time ${num((Date.now() - started) / 1000)} s.`,
  );
  if (profileDir !== undefined) {
    out();
    out(`CPU profiles (service of parts a-c) in ${profileDir}:`);
    out(await summariseProfiles(profileDir));
  }

  for (const s of [alone, paced?.get, fan?.without, fan?.with]) {
    if (s !== null && s !== undefined && (s.non2xx > 0 || s.errors > 0)) {
      problems.push(`${s.name}: ${s.non2xx} non-2xx, ${s.errors} errors`);
    }
  }
  if (paced !== null && paced.done.non2xx + paced.done.errors > 0) {
    problems.push(
      `paced ingest: ${paced.done.non2xx} non-2xx ${JSON.stringify(paced.done.statuses)}, ` +
        `${paced.done.errors} errors ${paced.done.lastError}`,
    );
  }
  if (fan !== null && fan.sessions !== FANOUT_SESSIONS) {
    problems.push(`only ${fan.sessions} of ${FANOUT_SESSIONS} sessions subscribed`);
  }
  for (const problem of problems) out(`FAIL ${problem}`);
  return problems.length === 0 ? 0 : 1;
}

process.exitCode = await main();
