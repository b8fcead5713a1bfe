/**
 * The ANOMALY scenario of `npm run bench:rules` (also runs alone: `node --import tsx
 * bench/anomaly-rules.scenario.ts`): 1,000 ANOMALY series (basic, robust and seasonal; eventRate
 * per type, errorRate, latencyP95, uniqueUsers) in the real RuleEngine over the real Aggregator on
 * an injected clock, back-filled as the metrics actor seeds them, then ticked 1 s apart with 5,000
 * events/s recorded between ticks; prints the evaluator's time per tick, the ticks where buckets
 * complete (every series of a bucket width at once) and the baselines' memory.
 */
import { pathToFileURL } from 'node:url';
import { intKnob } from './harness/knobs.ts';
import { num, printTable } from './report/print-table.ts';
import { loadAverage, out } from './report/bench-notes.ts';
import { prng, typeName, userName } from './load-generators/event-mix.ts';
import type { MetricEvent } from '../src/domain/event.ts';
import { Aggregator } from '../src/domain/metrics/aggregator.ts';
import { RuleEngine } from '../src/domain/rules/rule-engine.ts';
import { NO_ALERT_HISTORY, type ActiveRule } from '../src/domain/rules/rule.ts';
import { validateRuleConfig } from '../src/domain/rules/rule-config-validation.ts';

// Knobs (env): ANOMALY_RULES (0 skips the scenario in bench:rules), ANOMALY_TICKS, ANOMALY_RATE.
const RULES = intKnob('ANOMALY_RULES', 1000, 0);
const TICKS = intKnob('ANOMALY_TICKS', 600);
const RATE = intKnob('ANOMALY_RATE', 5000);
const TYPES = 1000;
const USERS = 100_000;
const MINUTE = 60_000;
/** A minute boundary: every series' bucket completes on the same tick, the worst case. */
const T0 = Date.UTC(2026, 0, 5);

const random = prng(0xa11);
const pick = (n: number): number => Math.floor(random() * n);

function received(count: number, from: number, spanMs: number): MetricEvent[] {
  const out: MetricEvent[] = [];
  for (let i = 0; i < count; i++) {
    const roll = random();
    out.push({
      eventType: typeName(pick(TYPES)),
      source: 'web',
      userId: userName(pick(USERS)),
      severity: roll < 0.965 ? 'INFO' : 'ERROR',
      latencyMs: roll < 0.99 ? 1 + pick(20) : 20 + pick(2000),
      receivedAt: from + pick(spanMs),
    });
  }
  return out;
}

/** The mix: a tenth each of errorRate, latencyP95, uniqueUsers; the rest eventRate of one type. */
export function anomalyConfig(i: number): Record<string, unknown> {
  const algorithm = (['basic', 'robust', 'seasonal'] as const)[i % 3];
  const bucketMinutes = algorithm === 'seasonal' ? 5 : i % 2 === 0 ? 1 : 5;
  const kind = i % 10;
  const metric =
    kind === 0 ? 'errorRate' : kind === 1 ? 'latencyP95' : kind === 2 ? 'uniqueUsers' : 'eventRate';
  return {
    metric,
    ...(metric === 'eventRate' || metric === 'errorRate' ? { eventType: typeName(i % TYPES) } : {}),
    algorithm,
    bucketMinutes,
    alertWindowMinutes: 3 * bucketMinutes,
    minHistoryMinutes: algorithm === 'seasonal' ? 1440 : 60,
  };
}

function activeRules(): ActiveRule[] {
  return Array.from({ length: RULES }, (_, i) => {
    const checked = validateRuleConfig('ANOMALY', anomalyConfig(i));
    if (!checked.ok) throw new Error(checked.errors.join('; '));
    return {
      id: i + 1,
      name: `anomaly ${i}`,
      version: 1,
      ruleType: 'ANOMALY',
      ruleConfig: checked.config,
      severity: 'HIGH',
      priority: 0,
      suppressionWindowMinutes: 30,
      maxAlertsPerHour: 10,
      notificationChannels: [],
      notificationConfig: null,
      ...NO_ALERT_HISTORY,
    };
  });
}

/** What a bucket of each metric is near at RATE events/s over TYPES types (the back-fill). */
function typical(metric: string, bucketMinutes: number): number {
  if (metric === 'errorRate') return 3.5;
  if (metric === 'latencyP95') return 19;
  if (metric === 'uniqueUsers') return Math.min(USERS, RATE * 60 * bucketMinutes * 0.63);
  return (RATE * 60 * bucketMinutes) / TYPES;
}

const rank = (sorted: readonly number[], p: number): number =>
  sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

export function runAnomalyScenario(): void {
  if (RULES === 0) return;
  const loadAtStart = loadAverage();
  let now = T0 - 2 * MINUTE;
  const aggregator = new Aggregator({ now: () => now });
  const rules = activeRules();
  const engine = new RuleEngine();
  const setStart = performance.now();
  engine.setRules(rules, now);
  const setRulesMs = performance.now() - setStart;
  const seedStart = performance.now();
  for (const request of engine.backfillRequests(now)) {
    const config = rules[request.ruleId - 1]?.ruleConfig as { metric: string };
    const level = typical(config.metric, request.bucketMinutes);
    const count = Math.round((request.to - request.from) / (request.bucketMinutes * MINUTE));
    const values = Array.from({ length: count }, () => level * (0.97 + 0.06 * random()));
    engine.seedAnomaly({ ruleId: request.ruleId, generation: request.generation, values });
  }
  const seedMs = performance.now() - seedStart;
  const ticks: number[] = [];
  const boundary: number[] = [];
  let fired = 0;
  for (let tick = 0; tick < TICKS + 120; tick++) {
    now = T0 - 2 * MINUTE + (tick + 1) * 1000;
    aggregator.record(received(RATE, now - 1000, 1000));
    const started = performance.now();
    fired += engine.tick(aggregator, now).length;
    const ms = performance.now() - started;
    // The first 2 minutes fill the live buckets and warm V8 up: not measured.
    if (tick < 120) continue;
    ticks.push(ms);
    if (now % MINUTE === 5000) boundary.push(ms);
  }
  let bytes = 0;
  let learning = 0;
  for (const rule of rules) {
    const status = engine.anomalyStatus(rule.id);
    bytes += status?.baselineBytes ?? 0;
    if (status?.learning !== false) learning++;
  }
  const sorted = [...ticks].sort((a, b) => a - b);
  out(`## ANOMALY: ${num(RULES)} series, ${num(RATE)} events/s recorded between ticks, in process`);
  out();
  printTable(
    [
      { title: 'series' },
      { title: 'ticks', align: 'right' },
      { title: 'tick p50 ms', align: 'right' },
      { title: 'tick p99 ms', align: 'right' },
      { title: 'tick max ms', align: 'right' },
      { title: 'bucket-end ticks', align: 'right' },
      { title: 'bucket-end max ms', align: 'right' },
      { title: 'baselines KB', align: 'right' },
      { title: 'back-fill ms', align: 'right' },
      { title: 'alerts', align: 'right' },
    ],
    [
      [
        `${num(RULES)} (${num(RULES - learning)} judging)`,
        num(ticks.length),
        num(rank(sorted, 50), 3),
        num(rank(sorted, 99), 3),
        num(sorted.at(-1) ?? 0, 3),
        num(boundary.length),
        num(Math.max(0, ...boundary), 2),
        num(bytes / 1024),
        num(seedMs, 1),
        num(fired),
      ],
    ],
  );
  out();
  out(
    `Mix: a third each basic, robust, seasonal (daily, 5-min buckets, 288 slots); basic and robust ` +
      `alternate 1- and 5-min buckets; 70 % eventRate of one of ${num(TYPES)} types, 10 % each ` +
      `errorRate of a type, latencyP95, uniqueUsers. Each series back-filled with synthetic values ` +
      `(back-fill ms = seeding all of them), then ${num(TICKS)} ticks 1 s apart measured after 120 ` +
      `unmeasured ones; a bucket-end tick is 5 s after a minute boundary, where every 1-min series ` +
      `(and at 5-min boundaries every 5-min one) reads its completed bucket at once. setRules ` +
      `${num(setRulesMs, 1)} ms. Load average 1/5/15 min at the start ${loadAtStart}, now ${loadAverage()}.`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) runAnomalyScenario();
