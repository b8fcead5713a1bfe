// RuleEngine.putRules, the incremental update after one rule changed: only the named ids are
// replaced or dropped, the others keep their preparation and throttling, priority order holds.
import t from 'tap';
import type { AlertResolution } from '../../../src/domain/rules/alerts/alert.ts';
import { RuleEngine } from '../../../src/domain/rules/rule-engine.ts';
import { SECOND, T0, activeRule, leaf, mix, newAggregator } from './engine-fixtures.ts';

const holds = leaf('errorRate', 'GREATER_THAN', 20, 1);
const quiet = leaf('errorRate', 'GREATER_THAN', 90, 1);

void t.test('adds, replaces and drops only the named rules, in priority order', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + 30 * SECOND);
  aggregator.record(mix(T0, 5, 5)); // errorRate 50
  const engine = new RuleEngine();
  engine.setRules([activeRule(1, holds, { priority: 1 }), activeRule(2, holds, { priority: 2 })]);

  engine.putRules([3], [activeRule(3, holds, { priority: 10 })]);
  t.equal(engine.size(), 3, 'a new id is added');
  engine.putRules([1], [activeRule(1, holds, { priority: 20, version: 2 })]);
  t.equal(engine.size(), 3, 'a known id is replaced, not doubled');
  engine.putRules([2, 99], []);
  t.equal(engine.size(), 2, 'ids without a rule are dropped (an unknown one is ignored)');
  t.same(
    engine.tick(aggregator, clock.now()).map((a) => [a.ruleId, a.ruleVersion]),
    [
      [1, 2],
      [3, 1],
    ],
    'the new priority and version of rule 1 apply',
  );
  engine.putRules([3], [activeRule(3, quiet, { priority: 10, suppressionWindowMinutes: 0 })]);
  engine.putRules([1], [activeRule(1, holds, { priority: 20, suppressionWindowMinutes: 0 })]);
  const resolved: AlertResolution[] = [];
  t.same(engine.tick(aggregator, clock.now() + SECOND, resolved), [], 'rule 1 is still FIRING');
  t.same(
    resolved.map((r) => r.ruleId),
    [3],
    'rule 3 now checks its new condition: false, so its incident resolves',
  );
  t.end();
});

void t.test('a replaced rule keeps its throttling; a dropped and re-added one starts anew', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + 30 * SECOND);
  aggregator.record(mix(T0, 5, 5));
  const engine = new RuleEngine();
  engine.setRules([activeRule(1, holds, { suppressionWindowMinutes: 5 })]);
  t.equal(engine.tick(aggregator, clock.now()).length, 1);
  engine.putRules([1], [activeRule(1, holds, { suppressionWindowMinutes: 5, version: 2 })]);
  t.same(engine.tick(aggregator, clock.now() + SECOND), [], 'still suppressed after an update');
  engine.putRules([1], []);
  t.equal(engine.throttleNote(1, clock.now()), undefined, 'dropped: nothing held');
  // Re-added (enabled again) with its stored alert: throttled by that history.
  engine.putRules([1], [activeRule(1, holds, { suppressionWindowMinutes: 5, recentAlerts: [T0] })]);
  t.match(engine.throttleNote(1, clock.now() + SECOND), /^suppressed until/);
  t.end();
});

void t.test('many updates (past the rebuild of the prepared set) keep the set exact', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + 30 * SECOND);
  aggregator.record(mix(T0, 5, 5));
  const engine = new RuleEngine();
  engine.setRules([activeRule(1, quiet), activeRule(2, quiet)]);
  // Rule 1 flips between quiet and firing 300 times; rule 3 comes and goes.
  for (let i = 0; i < 300; i++) {
    const firing = i % 2 === 1;
    engine.putRules([1], [activeRule(1, firing ? holds : quiet, { version: i + 2 })]);
    engine.putRules([3], i % 3 === 0 ? [] : [activeRule(3, quiet, { priority: 5 })]);
  }
  t.equal(engine.size(), 3, 'rules 1, 2 and 3 (last put of 3 kept it)');
  t.same(
    engine.tick(aggregator, clock.now()).map((a) => [a.ruleId, a.ruleVersion]),
    [[1, 301]],
    'only the last version of rule 1 is evaluated',
  );
  t.end();
});
