/**
 * The backtest scenario of `npm run bench:rules` (issue 20, section 4: "it never slows ingest"):
 * about 7 days of events written straight into the service's PostgreSQL schema (one INSERT ...
 * SELECT generate_series, as if received over the past week), then a paced ingest for
 * BACKTEST_SEC without a backtest and BACKTEST_SEC while 7-day backtests (POST
 * /api/v1/rules/backtest) run one after the other; prints the ingest p50/p99 of both and the
 * ratio, and what each backtest took (and whether it reached BACKTEST_TIME_BUDGET_MS).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../src/config.ts';
import { ingestConnectionsKnob, ingestSpreadKnobs, intKnob } from './harness/knobs.ts';
import { startService, type BenchService } from './harness/bench-service.ts';
import { keyedFetch } from './load-generators/client-key.ts';
import { startPacedIngest, windowRate, type PacedDone } from './load-generators/paced-ingest.ts';
import { log } from './load-generators/run-load.ts';
import { loadAverage, machineNote, out } from './report/bench-notes.ts';
import { num, printTable } from './report/print-table.ts';

// Knobs (env): BACKTEST_SEC (each phase), BACKTEST_RATE (paced ingest, events/s),
// BACKTEST_EVENTS_PER_MIN (the seeded week's density), INGEST_CONNECTIONS, INGEST_TYPES,
// INGEST_SOURCES, INGEST_USERS as for the rest of bench:rules; BACKTEST_TIME_BUDGET_MS and the
// other service variables pass through.
const SECONDS = intKnob('BACKTEST_SEC', 30);
const RATE = intKnob('BACKTEST_RATE', 2000);
const PER_MINUTE = intKnob('BACKTEST_EVENTS_PER_MIN', 60);
const WARMUP_SEC = 5;
const DAY_MS = 86_400_000;
/** The longest range a backtest takes (docs/backtest.md), less a minute for the clock's drift. */
const RANGE_MS = 7 * DAY_MS - 60_000;

/** The backtested rule: the error rate of all events over 5 %; the seeded week stays at 2 %. */
const RULE = {
  name: 'bench backtest',
  ruleType: 'THRESHOLD',
  severity: 'HIGH',
  ruleConfig: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 5 },
};

/**
 * `perMinute` events a minute over the 7 days before `end`, received at their timestamps, spread
 * over the ingest's types, sources and users (2 % ERROR). Only the events table: the backtest
 * reads nothing else, and GET /events (which would need the count tables) is not read here.
 */
async function seedWeek(service: BenchService, end: number, perMinute: number): Promise<number> {
  const spread = ingestSpreadKnobs();
  const total = 7 * 1440 * perMinute;
  const stepMs = 60_000 / perMinute;
  const start = end - 7 * DAY_MS;
  await service.sql`
    INSERT INTO events (event_type, ts, source, user_id, session_id, severity, tags, metadata,
                        received_at, processing_latency_ms)
    SELECT 'type-' || (g % ${spread.types}), at, 'source-' || (g % ${spread.sources}),
           'user-' || (g % ${spread.users}), NULL,
           CASE WHEN g % 50 = 0 THEN 'ERROR' ELSE 'INFO' END, '{}', '{}', at, 1 + g % 20
    FROM generate_series(0, ${total - 1}::int) AS g,
         LATERAL (SELECT to_timestamp((${start}::float8 + g * ${stepMs}::float8) / 1000) AS at) t`;
  await service.sql`ANALYZE events`;
  return total;
}

interface Backtest {
  readonly seconds: number;
  readonly status: number;
  readonly truncated: boolean;
  readonly truncatedReason: string | null;
  readonly events: number;
  readonly ticks: number;
}

async function backtest(service: BenchService): Promise<Backtest> {
  const to = Date.now();
  const started = performance.now();
  const response = await keyedFetch(`${service.url}/api/v1/rules/backtest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ rule: RULE, from: to - RANGE_MS, to }),
  });
  const body = (await response.json()) as {
    truncated?: boolean;
    truncatedReason?: string | null;
    counts?: { events: number; ticks: number };
  };
  const result: Backtest = {
    seconds: (performance.now() - started) / 1000,
    status: response.status,
    truncated: body.truncated ?? false,
    truncatedReason:
      body.truncatedReason ?? (response.status === 200 ? null : JSON.stringify(body)),
    events: body.counts?.events ?? 0,
    ticks: body.counts?.ticks ?? 0,
  };
  log(`backtest: ${JSON.stringify(result)}`);
  return result;
}

interface Phase {
  readonly name: string;
  readonly eventsPerSec: number;
  readonly done: PacedDone;
}

/** A paced ingest for `seconds`; `during` runs alongside it and is told when the phase ends. */
async function phase(
  service: BenchService,
  name: string,
  seconds: number,
  during: (ending: () => boolean) => Promise<void> = () => Promise.resolve(),
): Promise<Phase> {
  const paced = await startPacedIngest({
    port: Number(new URL(service.url).port),
    rate: RATE,
    batch: 1,
    connections: ingestConnectionsKnob(),
    maxSec: seconds + 60,
    spread: ingestSpreadKnobs(),
    seed: 0xbac,
  });
  try {
    const from = await paced.counters();
    let ended = false;
    const alongside = during(() => ended);
    await sleep(seconds * 1000);
    const to = await paced.counters();
    const done = await paced.stop();
    ended = true;
    await alongside;
    log(`${name}: p50 ${num(done.p50Ms, 2)} ms, p99 ${num(done.p99Ms, 2)} ms`);
    return { name, eventsPerSec: windowRate(from, to).okPerSec, done };
  } finally {
    await paced.stop().catch(() => undefined);
  }
}

export async function backtestScenario(): Promise<number> {
  const loadAtStart = loadAverage();
  const budgetMs = loadConfig(process.env).BACKTEST_TIME_BUDGET_MS;
  log(`backtest scenario: ${PER_MINUTE} events/min over 7 days, ingest ${RATE}/s, ${SECONDS} s`);
  const service = await startService();
  const problems: string[] = [];
  const runs: Backtest[] = [];
  let phases: Phase[];
  let seeded: number;
  let seedSec: number;
  try {
    const seedStart = performance.now();
    seeded = await seedWeek(service, Date.now() - 60_000, PER_MINUTE);
    seedSec = (performance.now() - seedStart) / 1000;
    log(`seeded ${num(seeded)} events in ${num(seedSec, 1)} s`);
    await phase(service, 'warm-up', WARMUP_SEC);
    const without = await phase(service, 'no backtest', SECONDS);
    const withBacktest = await phase(
      service,
      '7-day backtests running',
      SECONDS,
      async (ending) => {
        // Started again as soon as one ends: the whole phase has a backtest running.
        while (!ending()) runs.push(await backtest(service));
      },
    );
    phases = [without, withBacktest];
  } finally {
    await service.stop().catch((error: unknown) => problems.push(String(error)));
  }
  const without = phases[0] as Phase;
  out(
    `## Rules, backtest: ingest ${num(RATE)} events/s with and without a 7-day backtest ` +
      `(${num(seeded)} stored events), ${SECONDS} s per phase`,
  );
  out();
  printTable(
    [
      { title: 'phase' },
      { title: 'ingest events/s', align: 'right' },
      { title: 'ingest p50 ms', align: 'right' },
      { title: 'ingest p99 ms', align: 'right' },
      { title: 'p99 / no backtest', align: 'right' },
    ],
    phases.map((p) => [
      p.name,
      num(p.eventsPerSec),
      num(p.done.p50Ms, 2),
      num(p.done.p99Ms, 2),
      p === without ? '' : `${num(p.done.p99Ms / without.done.p99Ms, 2)}x`,
    ]),
  );
  out();
  const whole = runs.filter((r) => r.status === 200 && !r.truncated);
  out(
    `Backtests: ${runs.length} run one after the other (the last one ends after the phase), ` +
      runs
        .map(
          (r) =>
            `${num(r.seconds, 1)} s` +
            (r.status !== 200
              ? ` (status ${r.status})`
              : r.truncated
                ? ` (truncated: ${r.truncatedReason})`
                : ''),
        )
        .join(', ') +
      `; ${whole.length} complete, ${runs.filter((r) => r.truncated).length} truncated at ` +
      `BACKTEST_TIME_BUDGET_MS=${budgetMs}. Each replayed ${num(runs[0]?.events ?? 0)} events in ` +
      `${num(runs[0]?.ticks ?? 0)} ticks (a THRESHOLD errorRate rule, 1 s ticks). Seeded ` +
      `${num(seeded)} events (${PER_MINUTE} a minute over 7 days) with INSERT ... SELECT ` +
      `generate_series in ${num(seedSec, 1)} s. Ingest: one event per request over ` +
      `${ingestConnectionsKnob()} connections from a second process, p50/p99 over each whole phase ` +
      `(after a ${WARMUP_SEC} s warm-up phase).`,
  );
  out(machineNote(loadAtStart));
  for (const p of phases) {
    const failed = p.done.non2xx + p.done.errors;
    if (failed > 0) problems.push(`${p.name}: ${failed} failed ingest requests`);
  }
  for (const r of runs) if (r.status !== 200) problems.push(`a backtest answered ${r.status}`);
  if (runs.length === 0) problems.push('no backtest ran');
  for (const problem of problems) out(`FAIL ${problem}`);
  return problems.length === 0 ? 0 : 1;
}
