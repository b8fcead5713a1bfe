/**
 * `npm run bench:rule-eval`: the rule evaluator alone, in this process: the pure aggregator on an
 * injected clock, filled with a synthetic history, and the 10,000-rule mix of bench:rules prepared
 * the way the metrics actor prepares them; prints the evaluator's time per tick as a markdown table.
 * Each scenario fills its history, then runs TICKS ticks 1 s apart, recording RATE events/s between
 * them (so the current minute grows and minutes roll over as in the service).
 */
import { intKnob } from './harness/knobs.ts';
import { num, printTable } from './report/print-table.ts';
import { loadAverage, out } from './report/bench-notes.ts';
import { prng, sourceName, typeName, userName } from './load-generators/event-mix.ts';
import { ruleBodies } from './load-generators/rule-mix.ts';
import type { MetricEvent, Severity } from '../src/domain/event.ts';
import { Aggregator } from '../src/domain/metrics/aggregator.ts';
import { RuleEngine } from '../src/domain/rules/rule-engine.ts';
import { NO_ALERT_HISTORY, type ActiveRule } from '../src/domain/rules/rule.ts';
import { validateRuleConfig } from '../src/domain/rules/rule-config-validation.ts';
import type { RuleSeverity, RuleType } from '../src/domain/rules/rule-types.ts';

// Knobs (env): RULES, TICKS, WARMUP (ticks run before the measured ones), RATE (events/s during
// the ticks and in the 2-minute history), HISTORY_RATE (events per minute of the longer histories),
// TYPES, SOURCES, USERS.
const RULES = intKnob('RULES', 10_000);
const TICKS = intKnob('TICKS', 100);
const WARMUP = intKnob('WARMUP', 10, 0);
const RATE = intKnob('RATE', 5000);
const HISTORY_RATE = intKnob('HISTORY_RATE', 20_000);
const TYPES = intKnob('TYPES', 1000);
const SOURCES = intKnob('SOURCES', 200);
const USERS = intKnob('USERS', 100_000);

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 1);
const SEVERITIES: readonly Severity[] = ['INFO', 'WARNING', 'ERROR', 'CRITICAL'];

interface Scenario {
  readonly name: string;
  readonly minutes: number;
  readonly perMinute: number;
}

const SCENARIOS: readonly Scenario[] = [
  { name: '2 min (as bench:rules)', minutes: 2, perMinute: RATE * 60 },
  { name: '60 min', minutes: 60, perMinute: HISTORY_RATE },
  { name: 'full 24 h', minutes: 1440, perMinute: HISTORY_RATE },
];

const random = prng(0x5eed);
const pick = (n: number): number => Math.floor(random() * n);

/** `count` events received at `at` .. `at + spreadMs`, over the bench:rules spread of keys. */
function batch(count: number, at: number, spreadMs: number): MetricEvent[] {
  return Array.from({ length: count }, (): MetricEvent => {
    const roll = random();
    return {
      eventType: typeName(pick(TYPES)),
      source: sourceName(pick(SOURCES)),
      userId: userName(pick(USERS)),
      severity: SEVERITIES[roll < 0.9 ? 0 : roll < 0.97 ? 1 : roll < 0.995 ? 2 : 3]!,
      // Mostly a few ms, as the service's own write latency, with a tail.
      latencyMs: random() < 0.99 ? 1 + pick(20) : 20 + pick(2000),
      receivedAt: at + pick(spreadMs),
    };
  });
}

function activeRules(): ActiveRule[] {
  return ruleBodies(RULES, { types: TYPES, sources: SOURCES, firingShare: 0.01 }).map((body, i) => {
    const rule = JSON.parse(body) as {
      name: string;
      ruleType: RuleType;
      ruleConfig: unknown;
      severity: RuleSeverity;
      priority: number;
      suppressionWindowMinutes: number;
      maxAlertsPerHour: number;
    };
    const checked = validateRuleConfig(rule.ruleType, rule.ruleConfig);
    if (!checked.ok) throw new Error(`rule ${i}: ${checked.errors.join('; ')}`);
    return {
      ...rule,
      id: i + 1,
      version: 1,
      ruleConfig: checked.config,
      notificationChannels: [],
      notificationConfig: null,
      ...NO_ALERT_HISTORY,
    };
  });
}

const rank = (sorted: readonly number[], p: number): number =>
  sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

interface Result {
  readonly events: number;
  readonly setRulesMs: number;
  readonly ticks: readonly number[];
  readonly fired: number;
}

function run(scenario: Scenario, rules: readonly ActiveRule[]): Result {
  const fillStart = T0 + (1440 - scenario.minutes) * MINUTE;
  let now = fillStart;
  const aggregator = new Aggregator({ now: () => now });
  let events = 0;
  for (let minute = 0; minute < scenario.minutes; minute++) {
    const at = fillStart + minute * MINUTE;
    for (let done = 0; done < scenario.perMinute; done += 5000) {
      now = at + MINUTE - 1;
      const part = batch(Math.min(5000, scenario.perMinute - done), at, MINUTE);
      aggregator.record(part);
      events += part.length;
    }
  }
  const engine = new RuleEngine();
  const prepared = performance.now();
  engine.setRules(rules);
  const setRulesMs = performance.now() - prepared;
  const ticks: number[] = [];
  let fired = 0;
  const ticksStart = fillStart + scenario.minutes * MINUTE;
  for (let tick = 0; tick < WARMUP + TICKS; tick++) {
    now = ticksStart + (tick + 1) * 1000;
    const part = batch(RATE, now - 1000, 1000);
    aggregator.record(part);
    events += part.length;
    const started = performance.now();
    fired += engine.tick(aggregator, now).length;
    if (tick >= WARMUP) ticks.push(performance.now() - started);
  }
  return { events, setRulesMs, ticks, fired };
}

const loadAtStart = loadAverage();
const rules = activeRules();
out(`## Rule evaluation per tick: ${num(RULES)} ACTIVE rules (the bench:rules mix), in process`);
out();
const rows = SCENARIOS.map((scenario) => {
  const result = run(scenario, rules);
  const sorted = [...result.ticks].sort((a, b) => a - b);
  process.stderr.write(`${scenario.name}: done\n`);
  return [
    scenario.name,
    num(result.events),
    num(TICKS),
    num(rank(sorted, 50), 2),
    num(rank(sorted, 99), 2),
    num(sorted.at(-1) ?? 0, 2),
    num(result.setRulesMs, 1),
    num(result.fired),
  ];
});
printTable(
  [
    { title: 'history' },
    { title: 'events recorded', align: 'right' },
    { title: 'ticks', align: 'right' },
    { title: 'eval p50 ms', align: 'right' },
    { title: 'eval p99 ms', align: 'right' },
    { title: 'eval max ms', align: 'right' },
    { title: 'setRules ms', align: 'right' },
    { title: 'alerts', align: 'right' },
  ],
  rows,
);
out();
out(
  `History: ${num(RATE)} events/s for the 2-minute one, ${num(HISTORY_RATE)} events/min for the ` +
    `others, over ${num(TYPES)} types, ${num(SOURCES)} sources, ${num(USERS)} users; then ${WARMUP} + ` +
    `${TICKS} ticks (the first ${WARMUP} not counted) 1 s apart with ${num(RATE)} events recorded ` +
    `before each. Eval = RuleEngine.tick (the metrics ` +
    `actor's evaluation) timed alone; setRules = preparing the ${num(RULES)} rules once.`,
);
out(`Load average 1/5/15 min at the start ${loadAtStart}, now ${loadAverage()}.`);
