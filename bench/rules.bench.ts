/**
 * `npm run bench:rules`: 10,000 ACTIVE rules, then a paced 5,000 events/s ingest while the evaluator
 * reports its own per-tick time (GET /api/v1/rules/evaluation-stats) and GET /metrics is read at c=10.
 * Then the PATTERN phases (bench/rules-pattern.ts) and the ingest under a 7-day backtest
 * (bench/rules-backtest.ts); SCENARIO picks among them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
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
import { log, runLoad, type LoadSummary } from './load-generators/run-load.ts';
import { keyedFetch } from './load-generators/client-key.ts';
import { errorText, loadAverage, machineNote, out } from './report/bench-notes.ts';
import type { EventSpread } from './load-generators/event-mix.ts';
import {
  startPacedIngest,
  windowRate,
  type PacedDone,
  type WindowRate,
} from './load-generators/paced-ingest.ts';
import { startService, type BenchService } from './harness/bench-service.ts';
import { ruleBodies } from './load-generators/rule-mix.ts';
import { metricsGetScenario } from './load-generators/service-calls.ts';
import { patternScenario } from './rules-pattern.ts';
import { runAnomalyScenario } from './anomaly-rules.scenario.ts';
import { backtestScenario } from './rules-backtest.ts';

// Knobs (env): RULES, RULE_CONCURRENCY, FIRING_PER_MILLE; INGEST_RATE, INGEST_BATCH, INGEST_SEC,
// INGEST_CONNECTIONS, INGEST_TYPES, INGEST_SOURCES, INGEST_USERS; ROUNDS, DURATION (s), WARMUP (s),
// GET_CONNECTIONS;
// PROFILE=1 profiles the service; service variables pass through; ANOMALY_RULES (0: no ANOMALY
// scenario), ANOMALY_TICKS, ANOMALY_RATE (bench/anomaly-rules.scenario.ts).
const RULES = intKnob('RULES', 10_000);
const RULE_CONCURRENCY = intKnob('RULE_CONCURRENCY', 32);
const FIRING_PER_MILLE = intKnob('FIRING_PER_MILLE', 10, 0);
const INGEST_RATE = intKnob('INGEST_RATE', 5000);
// Long enough for over 100 measured ticks, so that p99 is not simply the slowest one.
const INGEST_SEC = intKnob('INGEST_SEC', 130);
const INGEST_CONNECTIONS = ingestConnectionsKnob();
const INGEST_BATCH = ingestBatchKnob();
const SPREAD: EventSpread = ingestSpreadKnobs();
const ROUNDS = intKnob('ROUNDS', 3);
const DURATION = intKnob('DURATION', 15);
const WARMUP = intKnob('WARMUP', 3, 0);
const GET_CONNECTIONS = intKnob('GET_CONNECTIONS', 10);
/** Ingest runs this long before the GET rounds start. */
const SETTLE_SEC = 5;

const TARGET_EVAL_MS = 20;
const TARGET_GET_P99_MS = 2;

interface Percentiles {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

interface EvaluationStats extends Percentiles {
  readonly rules: number;
  readonly ticks: number;
  /** The evaluator thread's time on a CPU during the ticks (null: not known on this system). */
  readonly onCpu: Percentiles | null;
}

async function getJson<T>(service: BenchService, path: string): Promise<T> {
  const response = await keyedFetch(service.url + path);
  if (response.status !== 200) throw new Error(`GET ${path}: status ${response.status}`);
  return (await response.json()) as T;
}

/** The evaluator's stats over its last `last` ticks (at most the 600 it keeps). */
const evaluationStats = (service: BenchService, last = 600): Promise<EvaluationStats> =>
  getJson<EvaluationStats>(service, `/api/v1/rules/evaluation-stats?last=${Math.min(600, last)}`);

/** After a restart the rule set is loaded at start; waits until the evaluator holds all of it. */
async function waitForRules(service: BenchService): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if ((await evaluationStats(service)).rules >= RULES) return;
    await sleep(100);
  }
  throw new Error(`the evaluator did not load ${RULES} rules within 60 s of the restart`);
}

interface Created {
  readonly seconds: number;
  readonly failures: readonly string[];
}

async function createRules(service: BenchService): Promise<Created> {
  const bodies = ruleBodies(RULES, {
    types: SPREAD.types,
    sources: SPREAD.sources,
    firingShare: FIRING_PER_MILLE / 1000,
  });
  const started = performance.now();
  const failures: string[] = [];
  let next = 0;
  let created = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < bodies.length; i = next++) {
      const response = await keyedFetch(`${service.url}/api/v1/rules`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: bodies[i],
      });
      const text = await response.text();
      if (response.status !== 201) {
        failures.push(`rule ${i}: status ${response.status}: ${text.slice(0, 300)}`);
        continue;
      }
      if (++created % 1000 === 0) {
        const rate = created / ((performance.now() - started) / 1000);
        log(`created ${num(created)} rules (${num(rate)} rules/s)`);
      }
    }
  };
  await Promise.all(Array.from({ length: RULE_CONCURRENCY }, worker));
  return { seconds: (performance.now() - started) / 1000, failures };
}

interface Measured {
  readonly get: LoadSummary;
  readonly ingest: WindowRate;
  readonly done: PacedDone;
  readonly before: EvaluationStats;
  /** At the end of the settle time: the measured ticks are those after it. */
  readonly settled: EvaluationStats;
  /** Every tick of the ingest, the first SETTLE_SEC included. */
  readonly whole: EvaluationStats;
  readonly after: EvaluationStats;
  /** Readings every 5 s during the ingest, for the progress log. */
  readonly readings: readonly EvaluationStats[];
}

async function underIngest(service: BenchService): Promise<Measured> {
  const window = Math.max(INGEST_SEC, SETTLE_SEC + WARMUP + ROUNDS * (DURATION + 1) + 3);
  const before = await evaluationStats(service);
  const paced = await startPacedIngest({
    port: Number(new URL(service.url).port),
    rate: INGEST_RATE,
    batch: INGEST_BATCH,
    connections: INGEST_CONNECTIONS,
    maxSec: window + 60,
    spread: SPREAD,
    seed: 0x5eed,
  });
  const started = Date.now();
  const readings: EvaluationStats[] = [];
  let polling = true;
  const poll = (async () => {
    while (polling) {
      await sleep(5000);
      if (!polling) break;
      const stats = await evaluationStats(service);
      readings.push(stats);
      log(
        `evaluation-stats at ${num((Date.now() - started) / 1000)} s: rules ${stats.rules}, ` +
          `ticks ${stats.ticks}, p50 ${num(stats.p50Ms, 2)} ms, p99 ${num(stats.p99Ms, 2)} ms, max ${num(stats.maxMs, 2)} ms`,
      );
    }
  })();
  try {
    log(`paced ingest (pid ${paced.pid}) at ${num(INGEST_RATE)} events/s for ${window} s`);
    const from = await paced.counters();
    await sleep(SETTLE_SEC * 1000);
    const settled = await evaluationStats(service);
    const get = await runLoad(
      metricsGetScenario(`GET /metrics c=${GET_CONNECTIONS}`, service.url, GET_CONNECTIONS),
      { rounds: ROUNDS, durationSec: DURATION, warmupSec: WARMUP },
    );
    const left = window * 1000 - (Date.now() - started);
    if (left > 0) await sleep(left);
    const to = await paced.counters();
    const ticksNow = (await evaluationStats(service)).ticks;
    // The ticks after the settle time: the steady state, not V8 warming up the evaluator.
    const after = await evaluationStats(service, ticksNow - settled.ticks);
    const whole = await evaluationStats(service, ticksNow - before.ticks);
    polling = false;
    await poll;
    return {
      get,
      ingest: windowRate(from, to),
      done: await paced.stop(),
      before,
      settled,
      whole,
      after,
      readings,
    };
  } finally {
    polling = false;
    await paced.stop().catch(() => undefined);
  }
}

async function main(): Promise<number> {
  const loadAtStart = loadAverage();
  const started = Date.now();
  const problems: string[] = [];
  log(`rules bench: ${num(RULES)} rules; load average at start ${loadAtStart}`);
  const config = loadConfig(process.env);
  const profileDir = profileDirFor('rules');
  // The per-tick time on a CPU is measured only when asked for (src/telemetry).
  const service = await startService({
    // MAX_RULES (default 10,000) would refuse a larger RULES with 422 RULE_LIMIT.
    env: { EVALUATION_CPU_STATS: 'true', MAX_RULES: String(Math.max(RULES, 10_000)) },
  });
  let created: Created;
  let measured: Measured;
  let alerts: number;
  let active: number;
  try {
    log(
      `service pid ${service.pid}, ${service.url}; creating ${num(RULES)} rules, ${RULE_CONCURRENCY} at a time`,
    );
    created = await createRules(service);
    problems.push(...created.failures.slice(0, 5));
    if (created.failures.length > 5)
      problems.push(`… ${created.failures.length} rule creations failed`);
    active = (await getJson<{ activeRules: number }>(service, '/api/v1/rules/statistics'))
      .activeRules;
    log(`${num(active)} active rules after ${num(created.seconds, 1)} s; restarting the service`);
    // A fresh process on the same database: the evaluator's tick statistics (its last 600 ticks)
    // then cover the measured ingest, not the ticks of a rule set still growing.
    await service.restart(profileDir);
    await waitForRules(service);
    measured = await underIngest(service);
    alerts = (await getJson<{ totalElements: number }>(service, '/api/v1/alerts?size=1'))
      .totalElements;
  } finally {
    await service.stop().catch((error: unknown) => problems.push(errorText(error)));
  }

  const { get, ingest, done, before, settled, whole, after } = measured;
  const windowTicks = Math.min(600, after.ticks - settled.ticks);
  out(
    `## Rules: ${num(active)} ACTIVE rules, paced ingest ${num(INGEST_RATE)} events/s, ` +
      `GET /metrics c=${GET_CONNECTIONS} median of ${ROUNDS} x ${DURATION} s`,
  );
  out();
  printTable(
    [
      { title: 'rules' },
      { title: 'ticks', align: 'right' },
      { title: 'eval p50 ms', align: 'right' },
      { title: 'eval p99 ms', align: 'right' },
      { title: 'eval max ms', align: 'right' },
      { title: 'on-CPU p50 / p99 / max ms', align: 'right' },
      { title: 'GET /metrics req/s', align: 'right' },
      { title: 'GET p50 ms', align: 'right' },
      { title: 'GET p99 ms', align: 'right' },
      { title: 'ingest events/s', align: 'right' },
      { title: 'alerts fired', align: 'right' },
    ],
    [
      [
        num(after.rules),
        num(windowTicks),
        num(after.p50Ms, 2),
        num(after.p99Ms, 2),
        num(after.maxMs, 2),
        after.onCpu === null
          ? 'unknown'
          : `${num(after.onCpu.p50Ms, 2)} / ${num(after.onCpu.p99Ms, 2)} / ${num(after.onCpu.maxMs, 2)}`,
        num(get.reqPerSec),
        num(get.p50Ms, 2),
        num(get.p99Ms, 2),
        `${num(ingest.okPerSec)} of ${num(INGEST_RATE)}`,
        num(alerts),
      ],
    ],
  );
  out();
  out(
    `Eval = the evaluator's own wall time per tick, measured inside the metrics actor; on-CPU = the ` +
      `part of it the actor thread spent on a core (/proc/thread-self/schedstat; the rest is waiting ` +
      `for one of the 2 shared cores) ` +
      `(RULE_EVALUATION_MS=${config.RULE_EVALUATION_MS}), over the ${num(windowTicks)} ticks of the ingest ` +
      `after its first ${SETTLE_SEC} s. Over all ${num(Math.min(600, after.ticks - before.ticks))} ingest ticks, ` +
      `the first ones included (V8 still optimising the evaluator): p50 ${num(whole.p50Ms, 2)} / p99 ` +
      `${num(whole.p99Ms, 2)} / max ${num(whole.maxMs, 2)} ms. The service was restarted after creating ` +
      `the rules; the ${before.ticks} ticks between that start and the ingest ran on no data ` +
      `(p50 ${num(before.p50Ms, 2)} ms, max ${num(before.maxMs, 2)} ms).`,
  );
  out(
    `Rules: ${num(RULES)} created in ${num(created.seconds, 1)} s (${num(RULES / created.seconds)} rules/s, ` +
      `${RULE_CONCURRENCY} concurrent POST /api/v1/rules); THRESHOLD single and nested AND/OR/NOT ` +
      `(depth 1-3), 5 % RATE_CHANGE, windows 1-60 min, every spec 2.8 metric incl. indexed; ` +
      `${FIRING_PER_MILLE} per mille hold under traffic and are suppressed for 1440 min after firing.`,
  );
  out(
    `Ingest: a second load generator in its own process, ${ingestRequestsText(INGEST_BATCH)} at a fixed ` +
      `${num(INGEST_RATE)} events/s over ${num(SPREAD.types)} types, ${num(SPREAD.sources)} sources, ` +
      `${num(SPREAD.users)} users; ${num(done.non2xx)} non-2xx, ${num(done.errors)} errors, ` +
      `${num(done.dropped)} dropped (generator > 1 s behind); ingest p50 / p99 ${num(done.p50Ms, 2)} / ` +
      `${num(done.p99Ms, 2)} ms; generator CPU ${num(done.cpuPercent)} % of a core.`,
  );
  out(
    `Targets: evaluation of all rules < ${TARGET_EVAL_MS} ms per tick (p99) ` +
      `${after.p99Ms < TARGET_EVAL_MS ? 'met' : 'MISSED'} in wall time` +
      (after.onCpu === null
        ? ''
        : `, ${after.onCpu.p99Ms < TARGET_EVAL_MS ? 'met' : 'MISSED'} in time on a CPU`) +
      `; GET /metrics p99 < ${TARGET_GET_P99_MS} ms ` +
      `${get.p99Ms < TARGET_GET_P99_MS ? 'met' : 'MISSED'}.`,
  );
  out(machineNote(loadAtStart));
  out(`Total bench time ${num((Date.now() - started) / 1000)} s.`);
  if (profileDir !== undefined) {
    out();
    out(
      `CPU profiles in ${profileDir} (the restarted service: evaluation under ingest, not rule creation):`,
    );
    out(await summariseProfiles(profileDir));
  }

  out();
  runAnomalyScenario();
  if (active !== RULES) problems.push(`${active} active rules, expected ${RULES}`);
  if (after.rules !== RULES)
    problems.push(`the evaluator holds ${after.rules} rules, expected ${RULES}`);
  if (get.non2xx > 0 || get.errors > 0)
    problems.push(`GET /metrics: ${get.non2xx} non-2xx, ${get.errors} errors`);
  if (done.non2xx + done.errors > 0) {
    problems.push(
      `paced ingest: ${done.non2xx} non-2xx ${JSON.stringify(done.statuses)}, ${done.errors} errors ${done.lastError}`,
    );
  }
  for (const problem of problems) out(`FAIL ${problem}`);
  return problems.length === 0 ? 0 : 1;
}

// SCENARIO: `threshold` (the rules above), `pattern` (bench/rules-pattern.ts), `backtest`
// (bench/rules-backtest.ts), or a comma-separated list of them; all three by default.
const SCENARIOS = (process.env.SCENARIO ?? 'threshold,pattern,backtest').split(',');
const unknown = SCENARIOS.filter((s) => !['all', 'threshold', 'pattern', 'backtest'].includes(s));
if (unknown.length > 0) throw new Error(`SCENARIO: unknown ${unknown.join(', ')}`);
const runs = (name: string): boolean => SCENARIOS.includes(name) || SCENARIOS.includes('all');
let exitCode = 0;
if (runs('threshold')) exitCode = Math.max(exitCode, await main());
if (runs('pattern')) exitCode = Math.max(exitCode, await patternScenario());
if (runs('backtest')) exitCode = Math.max(exitCode, await backtestScenario());
process.exitCode = exitCode;
