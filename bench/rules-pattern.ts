/**
 * The PATTERN scenario of `npm run bench:rules` (issue 20): a paced ingest (5,000 events/s over
 * 100,000 users) first without PATTERN rules, then with 1,000 of them ("3 events of type A then
 * one of type B for the same userId within 5 minutes", A and B among the traffic's types), in one
 * run on one service: the metrics actor's CPU per event (from /proc) and the process's RSS in
 * each phase, and what the rules hold (GET /api/v1/rules/{id}/status of every rule).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ingestBatchKnob,
  ingestConnectionsKnob,
  ingestSpreadKnobs,
  intKnob,
} from './harness/knobs.ts';
import { startService, type BenchService } from './harness/bench-service.ts';
import { keyedFetch } from './load-generators/client-key.ts';
import { typeName } from './load-generators/event-mix.ts';
import { startPacedIngest, windowRate } from './load-generators/paced-ingest.ts';
import { log } from './load-generators/run-load.ts';
import { loadAverage, machineNote, out } from './report/bench-notes.ts';
import { num, printTable } from './report/print-table.ts';
import { processMemory } from './report/proc-status.ts';
import { serviceCpu } from './report/service-threads.ts';

// Knobs (env): PATTERN_RULES, PATTERN_SEC (each phase), PATTERN_WITHIN (minutes); INGEST_RATE,
// INGEST_BATCH, INGEST_CONNECTIONS, INGEST_TYPES, INGEST_USERS as for the rest of bench:rules.
const RULES = intKnob('PATTERN_RULES', 1000);
const SECONDS = intKnob('PATTERN_SEC', 60);
const WITHIN = intKnob('PATTERN_WITHIN', 5);
const RATE = intKnob('INGEST_RATE', 5000);
const SETTLE_SEC = 5;

interface Phase {
  readonly name: string;
  readonly eventsPerSec: number;
  readonly actorUsPerEvent: number;
  readonly actorCpuPercent: number;
  readonly rssMb: number;
  readonly ingestP99Ms: number;
  readonly failures: number;
}

async function phase(service: BenchService, name: string): Promise<Phase> {
  const paced = await startPacedIngest({
    port: Number(new URL(service.url).port),
    rate: RATE,
    batch: ingestBatchKnob(),
    connections: ingestConnectionsKnob(),
    maxSec: SETTLE_SEC + SECONDS + 60,
    spread: ingestSpreadKnobs(),
    seed: 0x5eed,
  });
  try {
    await sleep(SETTLE_SEC * 1000);
    const from = await paced.counters();
    const cpuFrom = serviceCpu(service.pid).metricsMs;
    await sleep(SECONDS * 1000);
    const to = await paced.counters();
    const cpuTo = serviceCpu(service.pid).metricsMs;
    const memory = await processMemory(service.pid);
    const done = await paced.stop();
    const events = to.ok - from.ok;
    const result: Phase = {
      name,
      eventsPerSec: windowRate(from, to).okPerSec,
      actorUsPerEvent: events === 0 ? Number.NaN : ((cpuTo - cpuFrom) * 1000) / events,
      actorCpuPercent: ((cpuTo - cpuFrom) / (to.at - from.at)) * 100,
      rssMb: memory.rssMb,
      ingestP99Ms: done.p99Ms,
      failures: done.non2xx + done.errors,
    };
    log(`${name}: ${JSON.stringify(result)}`);
    return result;
  } finally {
    await paced.stop().catch(() => undefined);
  }
}

/** Rule i: 3 events of one type then one of the next, per userId (the login example's shape). */
const ruleBody = (i: number, types: number): string =>
  JSON.stringify({
    name: `pattern ${i}`,
    ruleType: 'PATTERN',
    severity: 'LOW',
    suppressionWindowMinutes: 1440,
    ruleConfig: {
      partitionBy: 'userId',
      withinMinutes: WITHIN,
      steps: [
        { eventType: typeName(i % types), times: { min: 3 } },
        { eventType: typeName((i + 1) % types) },
      ],
    },
  });

async function createRules(service: BenchService, types: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < RULES; i++) {
    const response = await keyedFetch(`${service.url}/api/v1/rules`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: ruleBody(i, types),
    });
    const body = (await response.json()) as { id?: number };
    if (response.status !== 201 || body.id === undefined)
      throw new Error(`rule ${i}: ${response.status} ${JSON.stringify(body)}`);
    ids.push(body.id);
  }
  return ids;
}

interface Held {
  partitions: number;
  evicted: number;
  matches: number;
}

async function held(service: BenchService, ids: readonly number[]): Promise<Held> {
  const sum: Held = { partitions: 0, evicted: 0, matches: 0 };
  for (const id of ids) {
    const response = await keyedFetch(`${service.url}/api/v1/rules/${id}/status`);
    const status = (await response.json()) as {
      pattern?: { partitions: number; partitionsEvicted: number; matches: number };
    };
    sum.partitions += status.pattern?.partitions ?? 0;
    sum.evicted += status.pattern?.partitionsEvicted ?? 0;
    sum.matches += status.pattern?.matches ?? 0;
  }
  return sum;
}

export async function patternScenario(): Promise<number> {
  const loadAtStart = loadAverage();
  const spread = ingestSpreadKnobs();
  log(`PATTERN scenario: ${RULES} rules, ${RATE} events/s, ${SECONDS} s per phase`);
  const service = await startService({ env: { MAX_RULES: String(Math.max(RULES, 10_000)) } });
  const problems: string[] = [];
  let phases: Phase[];
  let state: Held;
  try {
    const without = await phase(service, 'no PATTERN rule');
    const ids = await createRules(service, spread.types);
    log(`${ids.length} PATTERN rules created`);
    const withRules = await phase(service, `${RULES} PATTERN rules`);
    state = await held(service, ids);
    phases = [without, withRules];
  } finally {
    await service.stop().catch((error: unknown) => problems.push(String(error)));
  }
  out(
    `## Rules, PATTERN: ${num(RULES)} rules over ${num(spread.users)} users, paced ingest ` +
      `${num(RATE)} events/s, ${SECONDS} s per phase`,
  );
  out();
  printTable(
    [
      { title: 'phase' },
      { title: 'ingest events/s', align: 'right' },
      { title: 'actor µs CPU / event', align: 'right' },
      { title: 'actor CPU % of a core', align: 'right' },
      { title: 'RSS MB', align: 'right' },
      { title: 'ingest p99 ms', align: 'right' },
    ],
    phases.map((p) => [
      p.name,
      num(p.eventsPerSec),
      num(p.actorUsPerEvent, 1),
      num(p.actorCpuPercent, 1),
      num(p.rssMb),
      num(p.ingestP99Ms, 2),
    ]),
  );
  out();
  out(
    `Held at the end: ${num(state.partitions)} partitions over ${num(RULES)} rules ` +
      `(${num(state.evicted)} evicted), ${num(state.matches)} sequences completed. Rule i: ` +
      `3 x ${typeName(0)}-like type i then type i+1 within ${WITHIN} min, by userId, over ` +
      `${num(spread.types)} types; actor CPU from /proc/<pid>/task/<tid>/stat of the metrics actor ` +
      `over the phase after its first ${SETTLE_SEC} s.`,
  );
  out(machineNote(loadAtStart));
  for (const p of phases)
    if (p.failures > 0) problems.push(`${p.name}: ${p.failures} failed requests`);
  for (const problem of problems) out(`FAIL ${problem}`);
  return problems.length === 0 ? 0 : 1;
}
