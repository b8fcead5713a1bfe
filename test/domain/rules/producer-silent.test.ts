// Producer-silent metrics (issue 18 section 4) on a real Aggregator and RuleEngine with an injected
// clock: the value before a key's first event (from the later of start and the rule's activation),
// after events, across a reset, seeded after a restart, and the caps; their validation and text.
import t from 'tap';
import { RuleEngine } from '../../../src/domain/rules/rule-engine.ts';
import { validateRuleConfig } from '../../../src/domain/rules/rule-config-validation.ts';
import { conditionText } from '../../../src/domain/rules/condition-text.ts';
import { testRule } from '../../../src/domain/rules/rule-test.ts';
import { SECOND, T0, activeRule, event, leaf, newAggregator, node } from './engine-fixtures.ts';

const CHECKOUT_FROM_WEB = node(
  'AND',
  leaf('secondsSinceLastEventByType[checkout]', 'GREATER_THAN', 120),
  leaf('secondsSinceLastEventBySource[web]', 'GREATER_THAN', 120),
);

const firedIds = (engine: RuleEngine, aggregator: Parameters<RuleEngine['tick']>[0], now: number) =>
  engine.tick(aggregator, now).map((alert) => alert.ruleId);

void t.test(
  'before the first event the value counts from the later of start and activation',
  (t) => {
    const { aggregator, clock } = newAggregator();
    const engine = new RuleEngine();
    // Rule 1 is active from the start; rule 2 is added 100 s later: its grace starts then.
    engine.setRules([activeRule(1, leaf('secondsSinceLastEvent', 'GREATER_THAN', 120))], T0);
    clock.set(T0 + 100 * SECOND);
    engine.putRules(
      [2],
      [activeRule(2, leaf('secondsSinceLastEvent', 'GREATER_THAN', 120))],
      T0 + 100 * SECOND,
    );
    clock.set(T0 + 120 * SECOND);
    t.same(firedIds(engine, aggregator, T0 + 120 * SECOND), [], '120 s is not more than 120');
    clock.set(T0 + 121 * SECOND);
    t.same(firedIds(engine, aggregator, T0 + 121 * SECOND), [1], 'rule 1 counts from start');
    clock.set(T0 + 221 * SECOND);
    t.same(firedIds(engine, aggregator, T0 + 221 * SECOND), [2], 'rule 2 from its activation');
    t.end();
  },
);

void t.test('a rule active before the metrics started counts from their start', (t) => {
  const { aggregator, clock } = newAggregator({}, T0 + 50 * SECOND);
  const engine = new RuleEngine();
  engine.setRules([activeRule(1, leaf('secondsSinceLastEvent', 'GREATER_THAN', 60))], T0);
  clock.set(T0 + 100 * SECOND);
  t.same(firedIds(engine, aggregator, T0 + 100 * SECOND), [], '50 s since the metrics started');
  clock.set(T0 + 111 * SECOND);
  t.same(firedIds(engine, aggregator, T0 + 111 * SECOND), [1]);
  t.end();
});

void t.test('after events: seconds since the newest event of the key', (t) => {
  const { aggregator, clock } = newAggregator();
  const engine = new RuleEngine();
  engine.setRules([activeRule(1, CHECKOUT_FROM_WEB)], T0);
  clock.set(T0 + 10 * SECOND);
  aggregator.record([event(T0 + 10 * SECOND, { eventType: 'checkout', source: 'web' })]);
  clock.set(T0 + 40 * SECOND);
  // Another source keeps sending checkouts: the AND holds only once both keys are silent.
  aggregator.record([event(T0 + 40 * SECOND, { eventType: 'checkout', source: 'app' })]);
  clock.set(T0 + 131 * SECOND);
  const evaluated = testRule(
    {
      name: 'silent web checkout',
      ruleType: 'THRESHOLD',
      ruleConfig: CHECKOUT_FROM_WEB,
      severity: 'HIGH',
    },
    aggregator,
  );
  t.same(evaluated.simulationResult?.currentValues, {
    'secondsSinceLastEventByType[checkout]': 91,
    'secondsSinceLastEventBySource[web]': 121,
  });
  t.equal(evaluated.simulationResult?.wouldTrigger, false);
  t.same(firedIds(engine, aggregator, T0 + 131 * SECOND), []);
  clock.set(T0 + 161 * SECOND);
  const [alert] = engine.tick(aggregator, T0 + 161 * SECOND);
  t.equal(alert?.ruleId, 1);
  t.equal(
    alert?.explanationText,
    'secondsSinceLastEventByType[checkout] = 121 > 120; secondsSinceLastEventBySource[web] = 151 > 120',
  );
  t.equal(
    alert?.condition,
    'secondsSinceLastEventByType[checkout] > 120 AND secondsSinceLastEventBySource[web] > 120',
  );
  t.match(alert?.explanation, { conditions: [{ key: 'checkout' }, { key: 'web' }] });
  t.end();
});

void t.test('an event resolves it: the value drops to the time since that event', (t) => {
  const { aggregator, clock } = newAggregator();
  const engine = new RuleEngine();
  engine.setRules(
    [activeRule(1, leaf('secondsSinceLastEventBySource[web]', 'GREATER_THAN', 5))],
    T0,
  );
  clock.set(T0 + 6 * SECOND);
  t.same(firedIds(engine, aggregator, T0 + 6 * SECOND), [1]);
  aggregator.record([event(T0 + 6 * SECOND, { source: 'web' })]);
  const resolved: Parameters<RuleEngine['tick']>[2] = [];
  clock.set(T0 + 7 * SECOND);
  engine.tick(aggregator, T0 + 7 * SECOND, resolved);
  t.same(
    resolved?.map((r) => [r.ruleId, r.valuesAtResolve]),
    [[1, { 'secondsSinceLastEventBySource[web]': 1 }]],
  );
  t.end();
});

void t.test('a reset keeps the last-event times; a restart reads them back (seed)', (t) => {
  const { aggregator, clock } = newAggregator();
  const metric = 'secondsSinceLastEventByType[checkout]';
  aggregator.record([event(T0, { eventType: 'checkout' })]);
  clock.set(T0 + 30 * SECOND);
  aggregator.reset();
  const value = (a: typeof aggregator): unknown =>
    testRule(
      {
        name: 'x',
        ruleType: 'THRESHOLD',
        ruleConfig: leaf(metric, 'GREATER_THAN', 1),
        severity: 'LOW',
      },
      a,
    ).simulationResult?.currentValues[metric];
  t.equal(value(aggregator), 30, 'the reset did not forget the producer');

  // A new actor at T0 + 60 s, seeded with the newest stored events.
  const restarted = newAggregator({}, T0 + 60 * SECOND);
  t.equal(value(restarted.aggregator), 0, 'unseeded: counts from the restart (test: from now)');
  restarted.aggregator.seedLastEvents({
    all: T0,
    types: [['checkout', T0]],
    sources: [['web', T0]],
  });
  t.equal(value(restarted.aggregator), 60, 'seeded: the time since the stored event');
  // A newer event recorded before the seed arrives is not undone by it.
  restarted.aggregator.record([event(T0 + 60 * SECOND, { eventType: 'late' })]);
  restarted.aggregator.seedLastEvents({ all: T0, types: [['late', T0]], sources: [] });
  const late = testRule(
    {
      name: 'x',
      ruleType: 'THRESHOLD',
      ruleConfig: node(
        'AND',
        leaf('secondsSinceLastEventByType[late]', 'GREATER_THAN', 1),
        leaf('secondsSinceLastEvent', 'GREATER_THAN', 1),
      ),
      severity: 'LOW',
    },
    restarted.aggregator,
  ).simulationResult?.currentValues;
  t.same(late, { 'secondsSinceLastEventByType[late]': 0, secondsSinceLastEvent: 0 });
  t.end();
});

void t.test('keys past the caps are not kept unless a rule watches them', (t) => {
  const { aggregator, clock } = newAggregator({ maxEventTypes: 1, maxSources: 1 });
  const engine = new RuleEngine();
  engine.setRules(
    [activeRule(1, leaf('secondsSinceLastEventByType[watched]', 'GREATER_THAN', 5))],
    T0,
  );
  aggregator.watch(engine.watchedKeys());
  aggregator.record([
    event(T0, { eventType: 'first' }),
    event(T0, { eventType: 'unwatched' }),
    event(T0, { eventType: 'watched' }),
  ]);
  clock.set(T0 + 10 * SECOND);
  const read = (key: string): unknown =>
    testRule(
      {
        name: 'x',
        ruleType: 'THRESHOLD',
        ruleConfig: leaf(`secondsSinceLastEventByType[${key}]`, 'GREATER_THAN', 1),
        severity: 'LOW',
      },
      aggregator,
      undefined,
      T0 + 10 * SECOND,
    ).simulationResult?.currentValues[`secondsSinceLastEventByType[${key}]`];
  t.equal(read('first'), 10);
  t.equal(read('watched'), 10, 'watched: kept past the cap');
  t.equal(read('unwatched'), 0, 'not kept: as if unseen, counted from the activation');
  t.same(firedIds(engine, aggregator, T0 + 10 * SECOND), [1]);
  t.end();
});

void t.test('rules reading the same key share a read per activation time', (t) => {
  const engine = new RuleEngine();
  const rules = [1, 2, 3].map((id) =>
    activeRule(id, leaf('secondsSinceLastEventByType[a]', 'GREATER_THAN', id)),
  );
  engine.setRules(rules, T0);
  t.equal(engine.reads().size, 1);
  engine.putRules(
    [4],
    [activeRule(4, leaf('secondsSinceLastEventByType[a]', 'LESS_THAN', 9))],
    T0 + 1,
  );
  t.equal(engine.reads().size, 2);
  // An edit keeps the activation: the edited rule's read is shared with the others again.
  engine.putRules(
    [1],
    [activeRule(1, leaf('secondsSinceLastEventByType[a]', 'GREATER_THAN', 7))],
    T0 + 5,
  );
  t.equal(engine.activeSinceOf(1), T0);
  t.equal(engine.activeSinceOf(4), T0 + 1);
  t.end();
});

void t.test('validation: names, did-you-mean, keys, RATE_CHANGE refused, window ignored', (t) => {
  const errors = (ruleType: 'THRESHOLD' | 'RATE_CHANGE', config: Record<string, unknown>) => {
    const result = validateRuleConfig(ruleType, config);
    return result.ok ? [] : result.errors;
  };
  t.same(errors('THRESHOLD', leaf('secondsSinceLastEvnt', 'GREATER_THAN', 60)), [
    `Metric 'secondsSinceLastEvnt' not found. Did you mean 'secondsSinceLastEvent'?`,
  ]);
  t.same(errors('THRESHOLD', leaf('secondsSinceLastEventByTpye[checkout]', 'GREATER_THAN', 60)), [
    `Metric 'secondsSinceLastEventByTpye[checkout]' not found. Did you mean 'secondsSinceLastEventByType[checkout]'?`,
  ]);
  t.same(errors('THRESHOLD', leaf('secondsSinceLastEventBySource', 'GREATER_THAN', 60)), [
    `Metric 'secondsSinceLastEventBySource' needs a key, as in secondsSinceLastEventBySource[<key>]`,
  ]);
  t.same(errors('THRESHOLD', leaf('secondsSinceLastEventBySorce', 'GREATER_THAN', 60)), [
    `Metric 'secondsSinceLastEventBySorce' not found. Did you mean 'secondsSinceLastEventBySource[<key>]'?`,
  ]);
  t.match(
    errors('THRESHOLD', leaf('nope', 'GREATER_THAN', 1))[0],
    /secondsSinceLastEventByType\[<eventType>\]/,
  );
  t.same(errors('RATE_CHANGE', leaf('secondsSinceLastEvent', 'GREATER_THAN', 50)), [
    `Metric 'secondsSinceLastEvent' cannot be used in a RATE_CHANGE rule: it is the time since the last event, not a value over a window to compare with the window before; use a THRESHOLD rule, e.g. secondsSinceLastEvent > 120`,
  ]);
  // windowMinutes is accepted (a leaf may inherit it) and has no effect: not in the text either.
  const windowed = validateRuleConfig(
    'THRESHOLD',
    leaf('secondsSinceLastEvent', 'GREATER_THAN', 60, 30),
  );
  t.ok(windowed.ok);
  if (windowed.ok)
    t.equal(conditionText('THRESHOLD', windowed.config), 'secondsSinceLastEvent > 60');
  t.end();
});

void t.test('rule test: a key no event used is a WARNING; a new rule counts from now', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + 500 * SECOND);
  const result = testRule(
    {
      name: 'x',
      ruleType: 'THRESHOLD',
      ruleConfig: leaf('secondsSinceLastEventByType[chekout]', 'GREATER_THAN', 60, 1),
      severity: 'LOW',
    },
    aggregator,
    undefined,
    T0 + 500 * SECOND,
  );
  t.equal(result.compilationStatus, 'WARNING');
  t.match(result.message, /No event has used the key 'chekout' of eventsByType/);
  t.equal(result.simulationResult?.currentValues['secondsSinceLastEventByType[chekout]'], 0);
  t.notOk(
    result.recommendations.some((r) => r.includes('1-minute window')),
    'no window advice for a metric without a window',
  );
  t.end();
});

void t.test('restored FIRING on a never-seen key waits its threshold before resolving', (t) => {
  // After a restart the key (no stored event) counts from the restart: false for 600 s, which is
  // not a recovery (its 5-minute window alone would have resolved it at 300 s).
  const { aggregator, clock } = newAggregator();
  const engine = new RuleEngine();
  const config = leaf('secondsSinceLastEventByType[never]', 'GREATER_THAN', 600);
  engine.setRules([activeRule(1, config, { firingSince: T0 - 3_600 * SECOND })], T0);
  const resolved: Parameters<RuleEngine['tick']>[2] = [];
  for (let s = 1; s <= 600; s += 1) {
    clock.set(T0 + s * SECOND);
    engine.tick(aggregator, T0 + s * SECOND, resolved);
  }
  t.same(resolved, [], 'still FIRING at 600 s');
  clock.set(T0 + 601 * SECOND);
  engine.tick(aggregator, T0 + 601 * SECOND, resolved);
  t.equal(engine.stateOf(1), 'FIRING', 'silent again: it never resolved');
  t.same(resolved, []);
  t.end();
});
