/**
 * `npm run bench:chaos`: the service as a child process under faults (kill -9 and restart, database
 * outage, overload, abusive WebSocket clients, SIGTERM under load); prints one table per fault.
 * CHAOS=crash,outage,overload,ws,shutdown picks sections; DATABASE_URL adds the external runs.
 */
import { randomBytes } from 'node:crypto';
import { freePort } from '../test/support/shared.ts';
import { intKnob } from './harness/knobs.ts';
import { num, printTable } from './report/print-table.ts';
import { runCrash, type CrashKind, type CrashResult } from '../test/support/shared.ts';
import {
  ownDatabase,
  runDatabase,
  type OwnPostgres,
  type RunDatabase,
} from '../test/support/shared.ts';
import { brokenPromises } from '../test/support/shared.ts';
import { runOutage, type OutageResult } from '../test/support/shared.ts';
import { runOverloadStep, type OverloadStep } from '../test/support/shared.ts';
import { mib } from '../test/support/shared.ts';
import { runShutdown, type ShutdownResult } from '../test/support/shared.ts';
import { spawnVigil, stopServer } from '../test/support/shared.ts';
import { runWsAbuse } from '../test/support/shared.ts';
import { runHostileReads } from './hostile-reads.scenario.ts';
import {
  runCheckpointCost,
  runReplay,
  type CostRun,
  type ReplayRun,
} from '../test/support/shared.ts';

const SECTIONS = (process.env.CHAOS ?? 'crash,outage,overload,ws,shutdown,reads,restart').split(
  ',',
);
const RESTART_REPLAYS = (process.env.RESTART_REPLAYS ?? '0,10000,50000').split(',').map(Number);
/** 0: the restart section measures no checkpoint cost. */
const COST_SECONDS = intKnob('CHECKPOINT_COST_SECONDS', 30, 0);
/** Pairs (none timed, every 10 s) of the checkpoint cost; their medians are compared. */
const COST_PAIRS = intKnob('CHECKPOINT_COST_PAIRS', 3, 1);
const EVENTS = intKnob('CRASH_EVENTS', 20_000);
const CONNECTIONS = intKnob('CRASH_CONNECTIONS', 16);
const OUTAGE_SECONDS = intKnob('OUTAGE_SECONDS', 10);
const OVERLOAD_SECONDS = intKnob('OVERLOAD_SECONDS', 15);
const OVERLOAD_CONNECTIONS = intKnob('OVERLOAD_CONNECTIONS', 500);
const QUERY_TIMEOUT_MS = intKnob('DB_QUERY_TIMEOUT_MS', 2000);
const GRACE_MS = intKnob('SHUTDOWN_GRACE_MS', 10_000);
const externalUrl = process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL;

const failures: string[] = [];
const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};
const heading = (title: string): void => {
  process.stdout.write(`\n## ${title}\n\n`);
};
const fail = (what: string, problems: readonly string[]): void => {
  for (const p of problems) failures.push(`${what}: ${p}`);
};

async function crashSection(): Promise<void> {
  heading(`Crash safety: ${num(EVENTS)} events from ${CONNECTIONS} connections, SIGKILL at half`);
  const runs: [string | null, CrashKind][] = [
    ...(externalUrl === undefined ? [] : ([[externalUrl, 'service']] as [string, CrashKind][])),
    [null, 'service'],
    [null, 'service+postgres'],
    [null, 'service+postgres, pid reused'],
  ];
  const results: CrashResult[] = [];
  for (const [databaseUrl, kind] of runs) {
    log(`crash: ${databaseUrl === null ? 'embedded' : 'external'}, kill -9 ${kind}`);
    const result = await runCrash({
      databaseUrl,
      kind,
      events: EVENTS,
      connections: CONNECTIONS,
      killAtAcked: Math.floor(EVENTS / 2),
    });
    results.push(result);
    fail(result.label, brokenPromises(result.check));
    if (result.finalExit.code !== 0)
      fail(result.label, [`restarted service exited ${result.finalExit.code} after SIGTERM`]);
    if (result.adopted === false && kind === 'service')
      fail(result.label, ['the restart did not reuse the running embedded PostgreSQL']);
    if (result.staleCleared === false)
      fail(result.label, ['the stale postmaster.pid stopped the restart']);
  }
  printTable(
    [
      { title: 'run' },
      { title: 'acked before kill', align: 'right' },
      { title: 'acked', align: 'right' },
      { title: 'stored', align: 'right' },
      { title: 'lost', align: 'right' },
      { title: 'duplicated', align: 'right' },
      { title: 'in doubt (stored)', align: 'right' },
      { title: 'other answers', align: 'right' },
      { title: 'kill to healthy ms', align: 'right' },
      { title: 'restart found', align: 'left' },
    ],
    results.map((r) => [
      r.label,
      num(r.ackedBeforeKill),
      num(r.check.acked),
      num(r.check.rows),
      num(r.check.lost),
      num(r.check.duplicated),
      `${r.check.inDoubt} (${r.check.inDoubtStored})`,
      [...r.counts]
        .filter(([k]) => k !== '202' && !k.startsWith('in-doubt'))
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ') || '–',
      num(r.downMs),
      r.adopted === true
        ? 'live postgres, reused'
        : r.staleCleared === true
          ? 'stale pid file, cleared'
          : r.adopted === null
            ? '–'
            : 'neither',
    ]),
  );
}

function outageTable(results: readonly OutageResult[]): void {
  printTable(
    [
      { title: 'mode' },
      { title: 'phase' },
      { title: 'requests', align: 'right' },
      { title: '202', align: 'right' },
      { title: '500', align: 'right' },
      { title: '503', align: 'right' },
      { title: 'no answer', align: 'right' },
      { title: 'slowest ms', align: 'right' },
      { title: 'health UP/DOWN', align: 'right' },
      { title: 'slowest health ms', align: 'right' },
      { title: 'RSS max MiB', align: 'right' },
    ],
    results.flatMap((r) =>
      r.phases.map((p) => [
        r.mode === 'stop' ? 'stopped (refuses)' : 'frozen (SIGSTOP)',
        p.phase,
        num(p.requests),
        num(p.accepted),
        num(p.failed500),
        num(p.refused503),
        num(p.noAnswer),
        num(p.maxMs),
        `${p.healthUp}/${p.healthDown}`,
        num(p.healthMaxMs),
        mib(p.rssMaxKiB),
      ]),
    ),
  );
  printTable(
    [
      { title: 'mode' },
      { title: 'first 202 after return ms', align: 'right' },
      { title: 'first UP after return ms', align: 'right' },
      { title: 'acked', align: 'right' },
      { title: 'lost', align: 'right' },
      { title: 'stored after a 500', align: 'right' },
      { title: 'exit', align: 'right' },
    ],
    results.map((r) => [
      r.mode,
      r.firstAckAfterMs === null ? 'never' : num(r.firstAckAfterMs),
      r.firstUpAfterMs === null ? 'never' : num(r.firstUpAfterMs),
      num(r.check.acked),
      num(r.check.lost),
      num(r.check.storedAfterError),
      String(r.exit.code),
    ]),
  );
}

async function outageSection(): Promise<void> {
  heading(
    `Database outage: ${OUTAGE_SECONDS} s under load (8 connections), DB_QUERY_TIMEOUT_MS=${QUERY_TIMEOUT_MS}`,
  );
  const results: OutageResult[] = [];
  for (const mode of ['stop', 'freeze'] as const) {
    log(`outage: ${mode}`);
    const r = await runOutage({
      mode,
      beforeMs: 5_000,
      outageMs: OUTAGE_SECONDS * 1000,
      afterMs: 10_000,
      connections: 8,
      queryTimeoutMs: QUERY_TIMEOUT_MS,
    });
    results.push(r);
    const label = `outage (${mode})`;
    fail(label, brokenPromises(r.check));
    const during = r.phases.find((p) => p.phase === 'during');
    const after = r.phases.find((p) => p.phase === 'after');
    const limit = QUERY_TIMEOUT_MS + 1500;
    // Any phase: a request sent just before the outage is the one most likely to hang in it.
    for (const p of r.phases) {
      if (p.maxMs > limit)
        fail(label, [
          `a request sent ${p.phase} the outage took ${num(p.maxMs)} ms (limit ${limit})`,
        ]);
    }
    if (during !== undefined && during.healthUp > 1)
      fail(label, [`health answered UP ${during.healthUp} times during the outage`]);
    if (r.firstAckAfterMs === null || r.firstUpAfterMs === null)
      fail(label, ['no recovery after the database came back']);
    if (after !== undefined && after.accepted === 0)
      fail(label, ['nothing accepted after the outage']);
    if (r.exit.code !== 0) fail(label, [`exit ${r.exit.code} after SIGTERM`]);
  }
  outageTable(results);
}

async function overloadSection(): Promise<void> {
  const db = await runDatabase();
  heading(
    `Overload: ${OVERLOAD_CONNECTIONS} connections, INGEST_QUEUE_MAX=10000, ${OVERLOAD_SECONDS} s per step (${db.kind} PostgreSQL)`,
  );
  const proc = await spawnVigil({
    port: await freePort(),
    env: { ...db.env, INGEST_QUEUE_MAX: '10000', LOG_LEVEL: 'warn' },
    name: 'vigil(overload)',
  });
  const tag = `overload-${randomBytes(4).toString('hex')}`;
  const steps: OverloadStep[] = [1, 10, 20, 40, 100].map((batchSize) => ({
    connections: OVERLOAD_CONNECTIONS,
    batchSize,
    seconds: OVERLOAD_SECONDS,
  }));
  const rows: (string | number)[][] = [];
  let accepted = 0;
  let sheddingPoint: number | null = null;
  const rssStart = proc.rssKiB();
  let rssMax = 0;
  try {
    for (const step of steps) {
      log(`overload: ${step.connections} connections x ${step.batchSize} events`);
      const r = await runOverloadStep(proc, tag, step);
      accepted += r.acceptedEvents;
      rssMax = Math.max(rssMax, r.rssMaxKiB ?? 0);
      if (r.overloaded > 0 && sheddingPoint === null) sheddingPoint = r.offeredInFlight;
      if (r.overloaded !== r.overloadedWithRetryAfter)
        fail('overload', [`${r.overloaded - r.overloadedWithRetryAfter} 503s without Retry-After`]);
      const fiveHundreds = [...r.other]
        .filter(([k]) => k.startsWith('5'))
        .reduce((s, [, v]) => s + v, 0);
      rows.push([
        `${r.connections} x ${r.batchSize}`,
        num(r.offeredInFlight),
        num(r.requests),
        num(r.acceptedEventsPerSec),
        num(r.overloaded),
        `${num(r.overloadedWithRetryAfter)}`,
        [...r.other].map(([k, v]) => `${k}: ${v}`).join(', ') || '–',
        num(r.errors),
        num(r.p50, 1),
        num(r.p99, 1),
        num(r.max),
        `${mib(r.rssMinKiB)}–${mib(r.rssMaxKiB)}`,
      ]);
      if (fiveHundreds > 0) log(`overload: ${fiveHundreds} other 5xx answers (see the table)`);
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const [row] = await db.sql<
      { n: string }[]
    >`SELECT count(*)::text AS n FROM events WHERE source = ${tag}`;
    const stored = Number(row?.n ?? 0);
    printTable(
      [
        { title: 'connections x events per request' },
        { title: 'events in flight offered', align: 'right' },
        { title: 'requests', align: 'right' },
        { title: 'accepted events/s', align: 'right' },
        { title: '503 OVERLOADED', align: 'right' },
        { title: 'with Retry-After', align: 'right' },
        { title: 'other answers', align: 'left' },
        { title: 'socket errors', align: 'right' },
        { title: 'p50 ms (202)', align: 'right' },
        { title: 'p99 ms (202)', align: 'right' },
        { title: 'max ms (202)', align: 'right' },
        { title: 'RSS MiB', align: 'right' },
      ],
      rows,
    );
    process.stdout.write(
      `\nShedding point: 503 OVERLOADED first at ${sheddingPoint === null ? 'none of the steps' : `${num(sheddingPoint)} events in flight`} ` +
        `(INGEST_QUEUE_MAX=10000). Accepted events (from answers): ${num(accepted)}; stored rows: ${num(stored)} ` +
        `(stored >= accepted: ${stored >= accepted}; the difference is requests cut off at the end of each step). ` +
        `RSS ${mib(rssStart)} MiB at start, ${mib(rssMax)} MiB at most.\n`,
    );
    if (stored < accepted) fail('overload', [`${accepted - stored} accepted events not stored`]);
    const exit = await stopServer(proc);
    if (exit.code !== 0) fail('overload', [`exit ${exit.code} after SIGTERM`]);
  } finally {
    if (proc.exit() === null) await stopServer(proc);
    await db.cleanup();
  }
}

async function wsSection(): Promise<void> {
  const db = await runDatabase();
  heading('Slow and abusive WebSocket clients (STOMP at /ws), 5 well-behaved subscribers counting');
  const proc = await spawnVigil({
    port: await freePort(),
    env: { ...db.env },
    forward: false,
    name: 'vigil(ws)',
  });
  try {
    const r = await runWsAbuse(proc, { subscribers: 5, idleSockets: 500, dropTimeoutMs: 60_000 });
    printTable(
      [
        { title: 'client' },
        { title: 'behaviour' },
        { title: 'dropped', align: 'right' },
        { title: 'after ms', align: 'right' },
        { title: 'how' },
        { title: 'bytes sent', align: 'right' },
      ],
      r.abusers.map((a) => [
        a.client,
        a.behaviour,
        a.dropped ? 'yes' : 'NO',
        a.droppedAfterMs === null ? '–' : num(a.droppedAfterMs),
        a.how,
        num(a.sentBytes),
      ]),
    );
    process.stdout.write('\n');
    printTable(
      [
        { title: 'subscriber' },
        { title: 'seconds', align: 'right' },
        { title: 'messages/s min', align: 'right' },
        { title: 'messages/s max', align: 'right' },
        { title: 'longest gap ms', align: 'right' },
      ],
      r.cadence.map((c, i) => [
        `#${i + 1}`,
        c.seconds,
        c.perSecondMin,
        c.perSecondMax,
        num(c.maxGapMs),
      ]),
    );
    process.stdout.write(
      `\nRSS: ${mib(r.rssBeforeKiB)} MiB before the abuse, ${mib(r.rssMaxKiB)} MiB at most, ${mib(r.rssAfterKiB)} MiB after. Well-behaved subscribers closed: ${r.subscribersClosed}.\n`,
    );
    for (const a of r.abusers) if (!a.dropped) fail('ws', [`${a.client} was not dropped`]);
    if (r.subscribersClosed > 0)
      fail('ws', [`${r.subscribersClosed} well-behaved subscribers were closed`]);
    for (const c of r.cadence)
      if (c.maxGapMs > 2500) fail('ws', [`a subscriber waited ${c.maxGapMs} ms for a message`]);
    const exit = await stopServer(proc);
    if (exit.code !== 0) fail('ws', [`exit ${exit.code} after SIGTERM`]);
  } finally {
    if (proc.exit() === null) await stopServer(proc);
    await db.cleanup();
  }
}

/** The options with the database frozen (SIGSTOP) just before the signal, thawed after the exit. */
function frozen(
  db: { pg?: OwnPostgres },
  options: Parameters<typeof runShutdown>[1],
): Parameters<typeof runShutdown>[1] {
  let pids: number[] = [];
  return {
    ...options,
    // Requests sent after the freeze are then stuck in the drain's way.
    beforeSignal: async () => {
      pids = db.pg?.freeze() ?? [];
      await new Promise((resolve) => setTimeout(resolve, 300));
    },
    afterExit: () => db.pg?.thaw(pids),
  };
}

async function shutdownSection(): Promise<void> {
  heading(
    `Graceful shutdown: SIGTERM under full load (16 connections), SHUTDOWN_GRACE_MS=${GRACE_MS}`,
  );
  const cases: [
    string,
    (db: RunDatabase & { pg?: OwnPostgres }) => Parameters<typeof runShutdown>[1],
    number,
  ][] = [
    ['single events', () => ({ connections: 16, loadMs: 5_000, graceMs: GRACE_MS }), 0],
    [
      'batches of 50',
      () => ({ connections: 16, loadMs: 5_000, graceMs: GRACE_MS, batchSize: 50 }),
      0,
    ],
    [
      'a client mid-body at SIGTERM',
      () => ({ connections: 16, loadMs: 3_000, graceMs: GRACE_MS, holdRequestOpen: true }),
      0,
    ],
    [
      'database frozen, second SIGTERM after 300 ms',
      (db) =>
        frozen(db, { connections: 16, loadMs: 3_000, graceMs: GRACE_MS, secondSignalAfterMs: 300 }),
      1,
    ],
    [
      'database frozen, one SIGTERM (grace 3 s)',
      (db) => frozen(db, { connections: 16, loadMs: 3_000, graceMs: 3_000 }),
      1,
    ],
  ];
  const rows: (string | number)[][] = [];
  for (const [name, makeOptions, expectedExit] of cases) {
    log(`shutdown: ${name}`);
    const db = name.startsWith('database frozen') ? await ownDatabase() : await runDatabase();
    const options = makeOptions(db);
    let r: ShutdownResult;
    try {
      r = await runShutdown(db, options);
    } finally {
      await db.cleanup();
    }
    const errors = [...r.counts]
      .filter(([k]) => k.startsWith('in-doubt') || k === 'refused')
      .reduce((s, [, v]) => s + v, 0);
    rows.push([
      name,
      num(r.check.acked),
      num(r.ackedAfterSignal),
      num(r.shuttingDown503),
      num(errors),
      `${r.check.inDoubt} (${r.check.inDoubtStored})`,
      [...r.counts]
        .filter(([k]) => k.startsWith('5') && !k.includes('SHUTTING_DOWN'))
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ') || '–',
      num(r.check.lost),
      num(r.check.storedAfter503),
      String(r.exit.code),
      num(r.exitMs),
    ]);
    fail(`shutdown (${name})`, brokenPromises(r.check));
    if (r.exit.code !== expectedExit)
      fail(`shutdown (${name})`, [`exit ${r.exit.code}, expected ${expectedExit}`]);
    if (expectedExit === 0 && r.exitMs > options.graceMs)
      fail(`shutdown (${name})`, [`exit after ${r.exitMs} ms`]);
  }
  printTable(
    [
      { title: 'case' },
      { title: '202 (stored)', align: 'right' },
      { title: '202 after SIGTERM', align: 'right' },
      { title: '503 SHUTTING_DOWN', align: 'right' },
      { title: 'connection errors', align: 'right' },
      { title: 'in doubt (stored)', align: 'right' },
      { title: 'other 5xx', align: 'left' },
      { title: 'lost', align: 'right' },
      { title: 'stored after 503', align: 'right' },
      { title: 'exit code', align: 'right' },
      { title: 'SIGTERM to exit ms', align: 'right' },
    ],
    rows,
  );
}

async function readsSection(): Promise<void> {
  const seeded = intKnob('READS_SEEDED', 70_000);
  const phaseMs = intKnob('READS_PHASE_MS', 15_000);
  const rate = intKnob('READS_INGEST_RPS', 400);
  // READS_IGNORE_RETRY_AFTER=1: the clients come back 50 ms after a refusal (a hostile client).
  const honourRetryAfter = process.env.READS_IGNORE_RETRY_AFTER !== '1';
  heading(
    `Hostile reads: ingest at ${rate}/s alone, then with 10 read keys replaying PATTERN rule tests over ${num(seeded)} events (${phaseMs / 1000} s each; Retry-After ${honourRetryAfter ? 'honoured' : 'ignored'})`,
  );
  const r = await runHostileReads({
    seeded,
    phaseMs,
    requestsPerSecond: rate,
    honourRetryAfter,
    log,
  });
  fail('reads', r.problems);
  const ratio = r.withReads.ackedLatency.p99 / Math.max(1, r.alone.ackedLatency.p99);
  if (ratio > 1.5)
    fail('reads', [`ingest p99 rose ${ratio.toFixed(2)}x with the reads (limit 1.5x)`]);
  if (r.exitCode !== 0) fail('reads', [`exit ${r.exitCode} after SIGTERM`]);
  printTable(
    [
      { title: 'phase' },
      { title: 'acked', align: 'right' },
      { title: 'p50 ms', align: 'right' },
      { title: 'p99 ms', align: 'right' },
      { title: 'max ms', align: 'right' },
      { title: 'rule tests (status: answers)' },
    ],
    [
      [
        'ingest alone',
        num(r.alone.acked),
        num(r.alone.ackedLatency.p50),
        num(r.alone.ackedLatency.p99),
        num(r.alone.maxMs),
        '',
      ],
      [
        'with 10 replaying read keys',
        num(r.withReads.acked),
        num(r.withReads.ackedLatency.p50),
        num(r.withReads.ackedLatency.p99),
        num(r.withReads.maxMs),
        [...r.ruleTests].map(([status, n]) => `${status}: ${n}`).join(', '),
      ],
    ],
  );
  process.stdout.write(`\ningest p99 with the reads / alone: ${ratio.toFixed(2)}x\n`);
}

async function restartSection(): Promise<void> {
  heading('Restart: first restored snapshot against events replayed (kill -9 after a reset)');
  const replays: ReplayRun[] = [];
  for (const events of RESTART_REPLAYS) {
    log(`restart: ${events} events to replay`);
    const run = await runReplay(externalUrl, Math.max(0, events));
    replays.push(run);
    if (!run.exact) fail(`restart, ${events} events`, ['the restored snapshot is not exact']);
  }
  printTable(
    [
      { title: 'events after the checkpoint' },
      { title: 'replayed', align: 'right' },
      { title: 'restore ms', align: 'right' },
      { title: 'process start to first snapshot, ms', align: 'right' },
      { title: 'exact' },
    ],
    replays.map((r) => [
      num(r.events),
      num(r.replayedEvents),
      num(r.restoreMs),
      num(r.startMs),
      String(r.exact),
    ]),
  );
  if (COST_SECONDS === 0) return;
  heading(
    `Checkpoint cost on ingest: ${COST_PAIRS} pairs of ${COST_SECONDS} s saturating, ` +
      '16 connections, batches of 10',
  );
  const costs: CostRun[] = [];
  // In pairs, the order swapped each time: a machine growing busier favours neither setting.
  for (let pair = 0; pair < COST_PAIRS; pair++) {
    for (const seconds of pair % 2 === 0 ? [0, 10] : [10, 0]) {
      log(`checkpoint cost, pair ${pair + 1}: METRICS_CHECKPOINT_SECONDS=${seconds}`);
      costs.push(await runCheckpointCost(externalUrl, seconds, COST_SECONDS, 16, 10));
    }
  }
  printTable(
    [
      { title: 'METRICS_CHECKPOINT_SECONDS' },
      { title: 'events/s', align: 'right' },
      { title: 'p99 ms', align: 'right' },
      { title: 'CPU µs/event', align: 'right' },
      { title: 'checkpoints', align: 'right' },
      { title: 'their share of the CPU', align: 'right' },
    ],
    costs.map((c) => [
      c.checkpointSeconds === 0 ? '0 (none timed)' : String(c.checkpointSeconds),
      num(Math.round(c.eventsPerSecond)),
      c.p99Ms.toFixed(1),
      c.cpuPerEventUs.toFixed(1),
      num(c.checkpoints),
      `${(c.checkpointCpuShare * 100).toFixed(2)} %`,
    ]),
  );
  const median = (values: number[]): number => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? 0;
  };
  const of = (seconds: number): CostRun[] => costs.filter((c) => c.checkpointSeconds === seconds);
  const off = median(of(0).map((c) => c.eventsPerSecond));
  const on = median(of(10).map((c) => c.eventsPerSecond));
  const share = median(of(10).map((c) => c.checkpointCpuShare));
  const loss = 1 - on / off;
  process.stdout.write(`
medians: ${num(Math.round(off))} events/s without timed checkpoints, ${num(Math.round(on))} with them
every 10 s (${(loss * 100).toFixed(1)} % lower); the checkpoints took ${(share * 100).toFixed(2)} % of the
service's CPU (the metrics actor's take and encode, GET /metrics)
`);
  if (share > 0.05) fail('checkpoint cost', [`${(share * 100).toFixed(1)} % of the CPU (> 5 %)`]);
}

const sections: Record<string, () => Promise<void>> = {
  restart: restartSection,
  reads: readsSection,
  crash: crashSection,
  outage: outageSection,
  overload: overloadSection,
  ws: wsSection,
  shutdown: shutdownSection,
};
process.on('SIGINT', () => process.exit(130));
process.stdout.write(
  `# Vigil chaos run (${new Date().toISOString()}, ${externalUrl === undefined ? 'embedded PostgreSQL only' : `DATABASE_URL ${externalUrl}`})\n`,
);
for (const name of SECTIONS) {
  const section = sections[name];
  if (section === undefined)
    throw new Error(`CHAOS: unknown section ${name}; known: ${Object.keys(sections).join(', ')}`);
  await section();
}
process.stdout.write(
  `\n${failures.length === 0 ? 'Every check held.' : `FAILED CHECKS:\n${failures.map((f) => `- ${f}`).join('\n')}`}\n`,
);
process.exitCode = failures.length === 0 ? 0 : 1;
