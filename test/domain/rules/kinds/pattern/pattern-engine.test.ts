// PATTERN rules in the live evaluator: committed events in through observe(), one alert per
// completed sequence with its explanation, a re-delivered event not counted twice, the absent
// deadline on a tick, resolution after keepFiringSeconds, the runtime status, and partitions kept
// across a restart (the metrics checkpoint, issue 33).
import { deserialize, serialize } from 'node:v8';
import t from 'tap';
import type { DetailedMetricEvent, MetricEvent } from '../../../../../src/domain/event.ts';
import {
  restoreEngineState,
  takeEngineState,
} from '../../../../../src/domain/rules/engine-state.ts';
import { RuleEngine } from '../../../../../src/domain/rules/rule-engine.ts';
import { T0, activeRule, newAggregator } from '../../engine-fixtures.ts';
import { LOGIN_CONFIG, detailedEvent } from './fixtures.ts';

const LOGIN = { ...LOGIN_CONFIG, keepFiringSeconds: 10 };

const login = (id: number, userId: string, at: number, success: boolean): DetailedMetricEvent =>
  detailedEvent(id, userId, 'login', at, { success });

t.test('3 failed logins then a success: fires once, explained; a repeat counts once', async (t) => {
  const { aggregator } = newAggregator();
  const engine = new RuleEngine();
  t.equal(engine.needsEventDetail(), false, 'no PATTERN rule: events stay slim');
  engine.setRules([activeRule(1, LOGIN, { ruleType: 'PATTERN', name: 'Brute force' })], T0);
  t.equal(engine.needsEventDetail(), true);

  const fail1 = login(1, 'alice', T0 + 1000, false);
  const fail2 = login(2, 'alice', T0 + 2000, false);
  // A retried batch delivers the first two again: still two failures, not four.
  engine.observe([fail1, fail2]);
  engine.observe([fail1, fail2, login(3, 'alice', T0 + 2500, true)]);
  t.same(engine.tick(aggregator, T0 + 3000), [], 'two failures then a success: no sequence');
  const slim: MetricEvent = {
    eventType: 'login',
    source: 'web',
    userId: 'alice',
    severity: 'INFO',
    receivedAt: T0,
    latencyMs: 0,
  };
  engine.observe([slim, login(4, 'alice', T0 + 3500, false), login(5, 'alice', T0 + 3600, false)]);
  engine.observe([login(6, 'alice', T0 + 3700, false), login(7, 'alice', T0 + 3800, true)]);
  engine.observe([login(8, 'alice', T0 + 3900, true)]);
  const [alert, ...more] = engine.tick(aggregator, T0 + 4000);
  t.same(more, [], 'one alert');
  t.equal(alert?.ruleId, 1);
  t.equal(
    alert?.condition,
    'by userId within 5 min: login[metadata.success == false] x3 -> login[metadata.success == true]',
  );
  t.same(alert?.currentValues, { matches: 1, partitions: 0 });
  t.same(alert?.explanation, {
    pattern: 'PATTERN',
    partitionBy: 'userId',
    withinMinutes: 5,
    result: true,
    matchCount: 1,
    matches: [
      {
        partitionKey: 'alice',
        completedAt: new Date(T0 + 3800).toISOString(),
        steps: [
          {
            eventType: 'login',
            events: 3,
            first: { eventId: 'evt_4', at: new Date(T0 + 3500).toISOString() },
            last: { eventId: 'evt_6', at: new Date(T0 + 3700).toISOString() },
          },
          {
            eventType: 'login',
            events: 1,
            first: { eventId: 'evt_7', at: new Date(T0 + 3800).toISOString() },
            last: { eventId: 'evt_7', at: new Date(T0 + 3800).toISOString() },
          },
        ],
        absent: null,
      },
    ],
  });
  t.match(
    alert?.explanationText,
    /^userId=alice: login x3 \(evt_4 at .* \.\. evt_6 at .*\) then login \(evt_7 at .*\) within 5 min$/,
  );
  t.same(engine.statusOf(1), {
    state: 'FIRING',
    pattern: { partitions: 0, maxPartitions: 100_000, partitionsEvicted: 0, matches: 1 },
  });
  const resolved: Parameters<RuleEngine['tick']>[2] = [];
  engine.tick(aggregator, T0 + 5000, resolved);
  t.same(resolved, [], 'kept FIRING for keepFiringSeconds');
  engine.tick(aggregator, T0 + 15_000, resolved);
  t.equal(resolved.length, 1, 'resolved once no match completed for keepFiringSeconds');
  t.equal(resolved[0]?.cause, 'condition-cleared');
});

t.test('absent: fires on the tick at its deadline', async (t) => {
  const { aggregator } = newAggregator();
  const engine = new RuleEngine();
  const config = {
    partitionBy: 'userId',
    withinMinutes: 1,
    steps: [{ eventType: 'login' }],
    absent: { eventType: 'mfa', withinMinutes: 0.5 },
  };
  engine.setRules([activeRule(2, config, { ruleType: 'PATTERN' })], T0);
  engine.observe([login(1, 'bob', T0, true)]);
  t.same(engine.tick(aggregator, T0 + 29_999), []);
  const fired = engine.tick(aggregator, T0 + 30_000);
  t.equal(fired.length, 1);
  t.match(
    fired[0]?.explanationText,
    /^userId=bob: login \(evt_1 at .*\) within 1 min, not followed by mfa by .*$/,
  );
});

t.test(
  'a restart keeps the partitions: the sequence begun before it completes after',
  async (t) => {
    const { aggregator } = newAggregator();
    const rule = activeRule(1, LOGIN, { ruleType: 'PATTERN', name: 'Brute force' });
    const before = new RuleEngine();
    before.setRules([rule], T0);
    before.observe([1, 2, 3].map((id) => login(id, 'alice', T0 + id * 100, false)));
    t.same(before.tick(aggregator, T0 + 1000), [], 'three failures: nothing yet');
    // Through v8, as the metrics checkpoint carries the engine's state.
    const saved: unknown = deserialize(serialize(takeEngineState(before)));
    const after = new RuleEngine();
    after.setRules([rule], T0);
    restoreEngineState(after, saved);
    t.match(after.statusOf(1), { pattern: { partitions: 1 } }, "alice's partition restored");
    after.observe([login(4, 'alice', T0 + 2000, true)]);
    const alerts = after.tick(aggregator, T0 + 3000);
    t.equal(alerts.length, 1, 'the success after the restart completes the sequence');
    const edited = new RuleEngine();
    edited.setRules([{ ...rule, ruleConfig: { ...LOGIN, withinMinutes: 1 } }], T0);
    restoreEngineState(edited, saved);
    t.match(edited.statusOf(1), { pattern: { partitions: 0 } }, 'an edited rule starts empty');
  },
);
