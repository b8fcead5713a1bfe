// ANOMALY in the live evaluator with a real Aggregator on a hand-driven clock: LEARNING until the
// back-fill answers, the back-fill asked once per series, completed buckets read from the live
// metrics, the alert's band next to the observed value, and the rule test's simulation.
import t from 'tap';
import { RuleEngine } from '../../../../../src/domain/rules/rule-engine.ts';
import { testRule } from '../../../../../src/domain/rules/rule-test.ts';
import { explanationText } from '../../../../../src/domain/rules/explanation.ts';
import { MINUTE, SECOND, T0, activeRule, events, newAggregator } from '../../engine-fixtures.ts';

const CONFIG = {
  metric: 'eventRate',
  eventType: 'checkout',
  bucketMinutes: 1,
  algorithm: 'robust',
  direction: 'below',
  alertWindowMinutes: 3,
  minFraction: 0.6,
  minExpected: 10,
  minHistoryMinutes: 30,
};

void t.test('LEARNING until back-filled, then fires on a drop with its band', (t) => {
  const { aggregator, clock } = newAggregator({}, T0 - MINUTE);
  const engine = new RuleEngine();
  const rule = activeRule(1, CONFIG, { ruleType: 'ANOMALY' });
  engine.setRules([rule], T0);
  t.equal(engine.stateOf(1), 'LEARNING');
  const [request, ...more] = engine.backfillRequests(T0);
  t.same(more, []);
  t.match(request, {
    ruleId: 1,
    read: { metric: 'eventRate', eventType: 'checkout' },
    bucketMinutes: 1,
    from: T0 - 64 * MINUTE,
    to: T0 - MINUTE,
  });
  t.same(engine.backfillRequests(T0), [], 'asked once');
  t.equal(engine.anomalyStatus(1)?.backfill, 'pending');

  const feed = (minute: number, count: number): void => {
    clock.set(T0 + minute * MINUTE + 30 * SECOND);
    aggregator.record(events(count, clock.now(), { eventType: 'checkout' }));
    aggregator.record(events(50, clock.now(), { eventType: 'other' }));
  };
  feed(-1, 100);
  clock.set(T0 + 10 * SECOND);
  t.same(engine.tick(aggregator, clock.now()), [], 'no verdict before the back-fill');

  engine.seedAnomaly({ ruleId: 1, generation: request!.generation + 1, values: [] });
  t.equal(engine.anomalyStatus(1)?.backfill, 'pending', 'an answer for another series is ignored');
  engine.seedAnomaly({ ruleId: 1, generation: request!.generation, values: Array(63).fill(100) });
  t.match(engine.anomalyStatus(1), {
    backfill: 'done',
    learning: false,
    bucketsSeen: 63,
    historyMinutes: 63,
  });
  t.equal(engine.stateOf(1), 'OK');

  const fired = [];
  for (let minute = 0; minute < 6; minute++) {
    feed(minute, minute < 3 ? 100 : 10);
    clock.set(T0 + (minute + 1) * MINUTE + 6 * SECOND);
    fired.push(...engine.tick(aggregator, clock.now()).map((alert) => ({ minute, alert })));
  }
  t.equal(fired.length, 1, 'one alert');
  const { minute, alert } = fired[0]!;
  t.equal(minute, 4, 'fires once 2 of the 3 buckets are below the band');
  t.match(alert.explanation, {
    measure: 'band',
    metric: 'eventRate',
    eventType: 'checkout',
    observed: 10,
    outsideBuckets: 2,
    windowBuckets: 3,
    result: true,
    learning: false,
  });
  const band = alert.explanation as { expected: number; lower: number; upper: number };
  t.ok(
    band.expected > 95 && band.expected < 105 && band.lower > 60 && band.upper > 120,
    JSON.stringify(band),
  );
  t.match(alert.currentValues, {
    'eventRate[eventType=checkout]': 10,
    'expected(eventRate[eventType=checkout])': band.expected,
    'lower(eventRate[eventType=checkout])': band.lower,
    'upper(eventRate[eventType=checkout])': band.upper,
  });
  t.match(
    explanationText(alert.explanation),
    /^eventRate\[eventType=checkout\] per 1 min = 10, band \d+(\.\d+)?\.\.\d+(\.\d+)? \(expected \d+/,
  );
  t.match(alert.condition, /below the robust band ±3σ in ≥ 60% of 3 min/);
  t.equal(engine.stateOf(1), 'FIRING');
  t.end();
});

void t.test('a config change starts a new series; a rename keeps the learnt one', (t) => {
  const engine = new RuleEngine();
  engine.setRules([activeRule(1, CONFIG, { ruleType: 'ANOMALY' })], T0);
  const [first] = engine.backfillRequests(T0);
  engine.seedAnomaly({ ruleId: 1, generation: first!.generation, values: Array(63).fill(100) });
  engine.putRules([1], [activeRule(1, CONFIG, { ruleType: 'ANOMALY', name: 'renamed' })], T0);
  t.same(engine.backfillRequests(T0), [], 'same config: nothing to relearn');
  t.equal(engine.anomalyStatus(1)?.bucketsSeen, 63);
  engine.putRules([1], [activeRule(1, { ...CONFIG, bounds: 4 }, { ruleType: 'ANOMALY' })], T0);
  const [second] = engine.backfillRequests(T0);
  t.ok(
    second !== undefined && second.generation !== first!.generation,
    'new series, new back-fill',
  );
  engine.seedAnomaly({ ruleId: 1, generation: second!.generation, values: null });
  t.match(engine.anomalyStatus(1), { backfill: 'failed', learning: true, bucketsSeen: 0 });
  engine.putRules([1], [], T0);
  t.equal(engine.anomalyStatus(1), undefined, 'a paused rule forgets its series');
  t.end();
});

void t.test(
  'the rule test simulates on the live metrics and says how much history there is',
  (t) => {
    const { aggregator, clock } = newAggregator({}, T0);
    for (let minute = 0; minute < 40; minute++) {
      clock.set(T0 + minute * MINUTE + 30 * SECOND);
      aggregator.record(events(minute < 38 ? 100 : 5, clock.now(), { eventType: 'checkout' }));
    }
    clock.set(T0 + 40 * MINUTE + 6 * SECOND);
    const input = {
      name: 'drop',
      ruleType: 'ANOMALY' as const,
      severity: 'HIGH' as const,
      ruleConfig: CONFIG,
      notificationChannels: ['slack'],
    };
    const result = testRule(input, aggregator, undefined, clock.now(), { now: clock.now() });
    t.equal(result.success, true);
    t.equal(result.compilationStatus, 'SUCCESS');
    t.match(result.simulationResult, {
      wouldTrigger: true,
      currentValues: { 'eventRate[eventType=checkout]': 5 },
      explanation: { measure: 'band', observed: 5, outsideBuckets: 2 },
    });
    t.match(result.message, /The rule would trigger now/);
    t.match(result.recommendations, [
      /the live metrics .* hold 40 buckets of 1 min \(40 min of history\); minHistoryMinutes needs 30: once ACTIVE the rule back-fills/,
    ]);
    const typo = testRule(
      { ...input, ruleConfig: { ...CONFIG, eventType: 'chekout' } },
      aggregator,
      undefined,
      clock.now(),
      { now: clock.now() },
    );
    t.equal(typo.compilationStatus, 'WARNING');
    t.match(typo.message, /No event has used the eventType 'chekout'/);
    t.match(typo.simulationResult, { wouldTrigger: false });
    t.end();
  },
);
