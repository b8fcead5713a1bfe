// The live evaluator (DESIGN 6) on a real Aggregator with an injected clock: when rules fire, the
// window edges, RATE_CHANGE baselines, nested logic, priority order and what an alert carries.
import t from 'tap';
import type { WindowedMetrics } from '../../../src/domain/metrics/windows/window-reads.ts';
import type { AlertResolution, FiredAlert } from '../../../src/domain/rules/alerts/alert.ts';
import { RuleEngine } from '../../../src/domain/rules/rule-engine.ts';
import {
  MINUTE,
  SECOND,
  T0,
  activeRule,
  events,
  leaf,
  mix,
  newAggregator,
  node,
} from './engine-fixtures.ts';

/** A fired alert without its explanation tree (evaluator.test.ts checks trees). */
const brief = ({ explanation: _, ...rest }: FiredAlert): Omit<FiredAlert, 'explanation'> => rest;

void t.test('fires when the condition holds: what matched, the values, the channels', (t) => {
  const { aggregator, clock } = newAggregator();
  const now = T0 + 30 * SECOND;
  clock.set(now);
  aggregator.record(mix(T0 + 10 * SECOND, 3, 7)); // errorRate 30
  const engine = new RuleEngine();
  engine.setRules([
    activeRule(1, leaf('errorRate', 'GREATER_THAN', 20, 1), {
      name: 'High error rate',
      version: 4,
      severity: 'CRITICAL',
      notificationChannels: ['webhook:ops', 'slack'],
      notificationConfig: { slack: { channel: '#alerts' } },
    }),
    activeRule(2, leaf('errorRate', 'GREATER_THAN', 50, 1)),
  ]);
  t.equal(engine.size(), 2);
  t.same(engine.tick(aggregator, now).map(brief), [
    {
      ruleId: 1,
      ruleName: 'High error rate',
      ruleVersion: 4,
      severity: 'CRITICAL',
      triggeredAt: now,
      matchedConditions: ['errorRate 30 > 20'],
      currentValues: { errorRate: 30 },
      condition: 'errorRate > 20 [1 min]',
      message: "Rule 'High error rate' (CRITICAL) triggered: errorRate 30 > 20",
      explanationText: 'errorRate over 1 min = 30 > 20',
      // What delivery needs, from the rule as evaluated: nothing reads the rule again.
      notificationChannels: ['webhook:ops', 'slack'],
      notificationConfig: { slack: { channel: '#alerts' } },
      heldByBudget: false,
    },
  ]);
  t.end();
});

void t.test('does not fire when the condition does not hold, or with no data', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + 30 * SECOND);
  const engine = new RuleEngine();
  engine.setRules([
    activeRule(1, leaf('errorRate', 'GREATER_THAN', 20, 1)),
    activeRule(2, leaf('totalEvents', 'GREATER_THAN_OR_EQUAL', 11, 1)),
    activeRule(3, leaf('errorRate', 'EQUALS', 30, 1)),
  ]);
  t.same(engine.tick(aggregator, clock.now()), [], 'no events: nothing fires');
  aggregator.record(mix(T0 + 10 * SECOND, 2, 8)); // errorRate 20: not > 20; 10 events
  t.same(engine.tick(aggregator, clock.now()), []);
  aggregator.record(mix(T0 + 20 * SECOND, 1, 0)); // 3 of 11: 27.27...
  t.same(
    engine.tick(aggregator, clock.now()).map((a) => a.ruleId),
    [1, 2],
  );
  t.end();
});

void t.test('an empty engine and ANOMALY / PATTERN rules never fire', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + 30 * SECOND);
  aggregator.record(mix(T0, 10, 0));
  const engine = new RuleEngine();
  t.same(engine.tick(aggregator, clock.now()), []);
  engine.setRules([
    // An ANOMALY rule stored before its keys were defined keeps its object and never fires.
    {
      ...activeRule(1, { metric: 'eventRate' }, { ruleType: 'ANOMALY' }),
      ruleConfig: { anything: true },
    },
    activeRule(2, { sequence: ['a', 'b'] }, { ruleType: 'PATTERN' }),
  ]);
  t.equal(engine.size(), 2);
  t.same(engine.tick(aggregator, clock.now()), []);
  t.end();
});

void t.test('window edges: the current partial minute plus the N-1 before it', async (t) => {
  await t.test('windowMinutes 1 is the current minute only', (t) => {
    const { aggregator, clock } = newAggregator();
    const engine = new RuleEngine();
    engine.setRules([activeRule(1, leaf('totalErrors', 'GREATER_THAN_OR_EQUAL', 1, 1))]);
    clock.set(T0 + 59 * SECOND);
    aggregator.record(mix(T0 + 59 * SECOND, 1, 0));
    t.equal(engine.tick(aggregator, T0 + 59 * SECOND).length, 1, 'same minute');
    clock.set(T0 + MINUTE - 1);
    const resolved: AlertResolution[] = [];
    t.same(engine.tick(aggregator, clock.now(), resolved), [], 'one incident: fired once');
    t.same(resolved, [], 'last ms of that minute: still holds');
    clock.set(T0 + MINUTE);
    t.same(engine.tick(aggregator, clock.now(), resolved), []);
    t.match(resolved, [{ ruleId: 1 }], 'first ms of the next minute: out, resolved');
    t.end();
  });

  await t.test('windowMinutes 5: an event stays in for 5 minute boundaries', (t) => {
    const { aggregator, clock } = newAggregator();
    const engine = new RuleEngine();
    engine.setRules([activeRule(1, leaf('totalErrors', 'GREATER_THAN_OR_EQUAL', 1, 5))]);
    clock.set(T0 + 10 * SECOND);
    aggregator.record(mix(T0 + 10 * SECOND, 1, 0)); // minute 0
    const resolved: AlertResolution[] = [];
    for (const at of [T0 + 10 * SECOND, T0 + 4 * MINUTE, T0 + 5 * MINUTE - 1]) {
      clock.set(at);
      engine.tick(aggregator, at, resolved);
      t.equal(engine.stateOf(1), 'FIRING', `in at +${(at - T0) / SECOND}s`);
    }
    t.same(resolved, []);
    clock.set(T0 + 5 * MINUTE);
    engine.tick(aggregator, clock.now(), resolved);
    t.equal(engine.stateOf(1), 'OK', 'out at +300s');
    t.equal(resolved.length, 1);
    t.end();
  });

  await t.test('an event on a minute boundary belongs to the minute it starts', (t) => {
    const { aggregator, clock } = newAggregator();
    const engine = new RuleEngine();
    engine.setRules([
      activeRule(1, leaf('totalEvents', 'EQUALS', 1, 1)),
      activeRule(2, leaf('totalEvents', 'EQUALS', 2, 2)),
    ]);
    clock.set(T0 + MINUTE);
    aggregator.record(events(1, T0 + MINUTE - 1)); // minute 0
    aggregator.record(events(1, T0 + MINUTE)); // minute 1
    t.same(
      engine.tick(aggregator, clock.now()).map((a) => [a.ruleId, a.currentValues]),
      [
        [1, { totalEvents: 1 }],
        [2, { totalEvents: 2 }],
      ],
    );
    t.end();
  });

  await t.test('leaves with their own windows read their own windows', (t) => {
    const { aggregator, clock } = newAggregator();
    const engine = new RuleEngine();
    // errorRate over 1 min > 50 AND errorRate over 10 min < 50: a recent spike only.
    engine.setRules([
      activeRule(
        1,
        node(
          'AND',
          leaf('errorRate', 'GREATER_THAN', 50, 1),
          leaf('errorRate', 'LESS_THAN', 50, 10),
        ),
      ),
    ]);
    clock.set(T0 + 9 * MINUTE + 30 * SECOND);
    aggregator.record(mix(T0 + MINUTE, 0, 20));
    aggregator.record(mix(T0 + 9 * MINUTE, 4, 1));
    const [alert] = engine.tick(aggregator, clock.now());
    t.ok(alert, 'fires');
    t.same(alert?.matchedConditions, ['errorRate 80 > 50', 'errorRate 16 < 50']);
    t.same(alert?.currentValues, { errorRate: 80, 'errorRate (last 10 min)': 16 });
    t.equal(alert?.condition, 'errorRate > 50 [1 min] AND errorRate < 50 [10 min]');
    t.end();
  });
});

void t.test('RATE_CHANGE compares the last window with the one before it', async (t) => {
  const rateRule = (threshold: number, operator = 'GREATER_THAN', metric = 'totalEvents') =>
    activeRule(1, leaf(metric, operator, threshold, 1), { ruleType: 'RATE_CHANGE' });

  await t.test('no baseline: no events in the window before, no trigger', (t) => {
    const { aggregator, clock } = newAggregator();
    const engine = new RuleEngine();
    engine.setRules([rateRule(50)]);
    clock.set(T0 + MINUTE + 30 * SECOND);
    aggregator.record(events(100, T0 + MINUTE + 10 * SECOND));
    t.same(engine.tick(aggregator, clock.now()), [], 'a jump from nothing is not a change');
    // Events two windows back are no baseline either.
    const { aggregator: older, clock: olderClock } = newAggregator();
    olderClock.set(T0 + 2 * MINUTE + 30 * SECOND);
    older.record(events(10, T0 + 10 * SECOND));
    older.record(events(100, T0 + 2 * MINUTE + 10 * SECOND));
    t.same(engine.tick(older, olderClock.now()), []);
    t.end();
  });

  await t.test('with a baseline: fires on the percent change', (t) => {
    const { aggregator, clock } = newAggregator();
    const engine = new RuleEngine();
    engine.setRules([rateRule(50)]);
    clock.set(T0 + MINUTE + 30 * SECOND);
    aggregator.record(events(10, T0 + 30 * SECOND)); // window before: minute 0
    aggregator.record(events(15, T0 + MINUTE + 10 * SECOND)); // +50 %: not > 50
    t.same(engine.tick(aggregator, clock.now()), []);
    aggregator.record(events(5, T0 + MINUTE + 20 * SECOND)); // 20: +100 %
    const fired = engine.tick(aggregator, clock.now());
    t.same(
      fired.map((a) => [a.matchedConditions, a.currentValues, a.condition]),
      [
        [
          ['percentChange(totalEvents) 100 > 50'],
          {
            totalEvents: 20,
            'previous(totalEvents)': 10,
            'percentChange(totalEvents)': 100,
          },
          'percentChange(totalEvents) > 50 [last 1 min vs the 1 before]',
        ],
      ],
    );
    t.end();
  });

  await t.test('a drop, and a metric that was 0 before', (t) => {
    const { aggregator, clock } = newAggregator();
    const engine = new RuleEngine();
    engine.setRules([
      activeRule(1, leaf('totalEvents', 'LESS_THAN', -50, 1), { ruleType: 'RATE_CHANGE' }),
      activeRule(2, leaf('totalErrors', 'GREATER_THAN', 0, 1), { ruleType: 'RATE_CHANGE' }),
    ]);
    clock.set(T0 + MINUTE + 30 * SECOND);
    aggregator.record(mix(T0 + 30 * SECOND, 0, 10)); // before: 10 events, 0 errors
    aggregator.record(mix(T0 + MINUTE + 10 * SECOND, 2, 2)); // now: 4 events, 2 errors
    const fired = engine.tick(aggregator, clock.now());
    t.same(
      fired.map((a) => [a.ruleId, a.matchedConditions]),
      [[1, ['percentChange(totalEvents) -60 < -50']]],
      'the drop fires; errors from 0 have no percent change',
    );
    t.end();
  });
});

void t.test('nested logic: AND, OR and NOT at any depth', (t) => {
  // totalEvents >= 5 AND (errorRate > 50 OR NOT (eventsByType[checkout.failed] < 3))
  const config = node(
    'AND',
    leaf('totalEvents', 'GREATER_THAN_OR_EQUAL', 5),
    node(
      'OR',
      leaf('errorRate', 'GREATER_THAN', 50),
      node('NOT', leaf('eventsByType[checkout.failed]', 'LESS_THAN', 3)),
    ),
  );
  const run = (errors: number, ok: number) => {
    const { aggregator, clock } = newAggregator();
    clock.set(T0 + 30 * SECOND);
    aggregator.record(mix(T0 + 10 * SECOND, errors, ok));
    const engine = new RuleEngine();
    engine.setRules([activeRule(1, { ...config, windowMinutes: 1 })]);
    return engine.tick(aggregator, clock.now());
  };
  t.same(run(2, 2), [], 'only 4 events: the AND fails');
  t.same(run(2, 8), [], '20 % errors and 2 checkout failures: the OR fails');
  const [byRate] = run(4, 1);
  t.same(byRate?.matchedConditions, [
    'totalEvents 5 >= 5',
    'errorRate 80 > 50',
    'NOT (eventsByType[checkout.failed] 4 < 3)',
  ]);
  const [byNot] = run(3, 7);
  t.same(byNot?.matchedConditions, [
    'totalEvents 10 >= 5',
    'NOT (eventsByType[checkout.failed] 3 < 3)',
  ]);
  t.same(byNot?.currentValues, {
    totalEvents: 10,
    errorRate: 30,
    'eventsByType[checkout.failed]': 3,
  });
  t.equal(
    byNot?.condition,
    'totalEvents >= 5 [1 min] AND (errorRate > 50 [1 min] OR (NOT eventsByType[checkout.failed] < 3 [1 min]))',
  );
  t.end();
});

void t.test('priority order: higher priority first, then lower id', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + 30 * SECOND);
  aggregator.record(mix(T0, 5, 5));
  const holds = leaf('errorRate', 'GREATER_THAN', 20, 1);
  const engine = new RuleEngine();
  engine.setRules([
    activeRule(1, holds, { priority: 1 }),
    activeRule(2, holds, { priority: 10 }),
    activeRule(3, leaf('errorRate', 'GREATER_THAN', 90, 1), { priority: 100 }),
    activeRule(4, holds, { priority: -5 }),
    activeRule(5, holds, { priority: 5 }),
    activeRule(6, holds, { priority: 10 }),
  ]);
  t.same(
    engine.tick(aggregator, clock.now()).map((a) => a.ruleId),
    [2, 6, 5, 1, 4],
  );
  // A change of priority takes effect at the next setRules.
  const again = new RuleEngine();
  again.setRules([activeRule(1, holds, { priority: 50 }), activeRule(2, holds, { priority: 10 })]);
  t.same(
    again.tick(aggregator, clock.now() + SECOND).map((a) => a.ruleId),
    [1, 2],
  );
  t.end();
});

void t.test('setRules keeps the throttling and lifecycle of rules it already has', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + 30 * SECOND);
  aggregator.record(mix(T0, 5, 5));
  const config = leaf('errorRate', 'GREATER_THAN', 20, 1);
  const engine = new RuleEngine();
  engine.setRules([activeRule(1, config, { suppressionWindowMinutes: 5 })]);
  t.equal(engine.tick(aggregator, clock.now()).length, 1);
  // Reloaded (e.g. after another rule changed): still FIRING, nothing fires again.
  t.same(engine.setRules([activeRule(1, config, { suppressionWindowMinutes: 5, version: 2 })]), []);
  t.equal(engine.stateOf(1), 'FIRING');
  t.same(engine.tick(aggregator, clock.now() + SECOND), []);
  // The next minute has no events: it resolves; then the condition holds again.
  const resolved: AlertResolution[] = [];
  clock.set(T0 + MINUTE);
  engine.tick(aggregator, clock.now(), resolved);
  t.equal(resolved.length, 1);
  aggregator.record(mix(T0 + MINUTE + 10 * SECOND, 5, 5));
  clock.set(T0 + MINUTE + 20 * SECOND);
  engine.setRules([
    activeRule(1, config, { suppressionWindowMinutes: 5, version: 2 }),
    activeRule(2, config, { suppressionWindowMinutes: 5, recentAlerts: [T0] }),
  ]);
  t.same(engine.tick(aggregator, clock.now()), [], 'both suppressed');
  t.equal(engine.stateOf(1), 'PENDING', 'held back by throttling: PENDING');
  t.match(engine.throttleNote(1, clock.now()), /^suppressed until 2026-11-22T10:05:30\.000Z/);
  t.match(engine.throttleNote(2, clock.now()), /^suppressed until 2026-11-22T10:05:00\.000Z/);
  t.equal(engine.throttleNote(3, clock.now()), undefined, 'unknown rule: no note');
  // A shorter suppression applies at once to the rule's existing history.
  engine.setRules([activeRule(1, config, { suppressionWindowMinutes: 0 })]);
  t.equal(engine.throttleNote(1, clock.now() + SECOND), undefined);
  t.same(
    engine.tick(aggregator, clock.now() + SECOND).map((a) => [a.ruleId, a.ruleVersion]),
    [[1, 1]],
  );
  t.end();
});

void t.test('rules that read the same metric over the same window share one read', (t) => {
  const sizes: number[] = [];
  const live: WindowedMetrics = {
    valuesOf(reads) {
      sizes.push(reads.size);
      return { get: (slot) => (reads.at(slot).previous ? 10 : 12) };
    },
    hasKey: () => true,
  };
  const engine = new RuleEngine();
  engine.setRules([
    activeRule(1, leaf('errorRate', 'GREATER_THAN', 50, 5)),
    activeRule(2, leaf('errorRate', 'LESS_THAN', 1, 5)),
    activeRule(
      3,
      node(
        'AND',
        leaf('errorRate', 'GREATER_THAN', 90, 5),
        leaf('totalEvents', 'GREATER_THAN', 0, 10),
      ),
    ),
    activeRule(4, leaf('errorRate', 'GREATER_THAN', 10, 5), { ruleType: 'RATE_CHANGE' }),
  ]);
  t.same(
    engine.tick(live, T0).map((a) => [a.ruleId, a.currentValues]),
    [[4, { errorRate: 12, 'previous(errorRate)': 10, 'percentChange(errorRate)': 20 }]],
  );
  // errorRate and totalEvents over their windows, errorRate and totalEvents over the 5 before.
  t.same(sizes, [4], 'one set of reads per tick, four of them');
  t.end();
});

void t.test('RATE_CHANGE: a window before that reaches back past the first event', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + 5 * MINUTE + 30 * SECOND);
  aggregator.record([
    ...events(2, T0 + 10 * SECOND, { latencyMs: 10 }),
    ...events(1, T0 + 3 * MINUTE, { latencyMs: 20 }),
    ...events(1, T0 + 5 * MINUTE, { latencyMs: 20 }),
  ]);
  const engine = new RuleEngine();
  const rateChange = { ruleType: 'RATE_CHANGE' } as const;
  engine.setRules([
    // 10:03-10:05 against 10:00-10:02: p99 20 against 10.
    activeRule(1, leaf('latencyP99', 'GREATER_THAN', 50, 3), rateChange),
    // 10:02-10:05 against 09:58-10:01 (only 10:00 and 10:01 have data): 2 events against 2.
    activeRule(2, leaf('totalEvents', 'GREATER_THAN', -1, 4), rateChange),
    // 09:56-10:05 against 09:46-09:55: nothing before, no baseline.
    activeRule(3, leaf('totalEvents', 'NOT_EQUALS', 12345, 10), rateChange),
  ]);
  t.same(
    engine.tick(aggregator, clock.now()).map((a) => [a.ruleId, a.currentValues]),
    [
      [1, { latencyP99: 20, 'previous(latencyP99)': 10, 'percentChange(latencyP99)': 100 }],
      [2, { totalEvents: 2, 'previous(totalEvents)': 2, 'percentChange(totalEvents)': 0 }],
    ],
  );
  t.end();
});
