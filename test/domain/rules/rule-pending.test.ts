// What the engine says of its PENDING rules (issue 34, published on /topic/alerts and shown on the
// dashboard's rule list): since when the condition holds, and until when the suppression window of
// the last incident holds the rule back.
import t from 'tap';
import type { AlertResolution } from '../../../src/domain/rules/alerts/alert.ts';
import { RuleEngine } from '../../../src/domain/rules/rule-engine.ts';
import { MINUTE, SECOND, T0, activeRule, leaf, mix, newAggregator } from './engine-fixtures.ts';

void t.test('a rule waiting out pendingSeconds: pending since, not suppressed', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + 30 * SECOND);
  aggregator.record(mix(T0, 5, 5));
  const engine = new RuleEngine();
  engine.setRules([
    activeRule(1, { ...leaf('errorRate', 'GREATER_THAN', 20, 1), pendingSeconds: 600 }),
  ]);
  t.same(engine.tick(aggregator, clock.now()), []);
  t.same(engine.pending(clock.now()), [
    {
      kind: 'pending',
      ruleId: 1,
      ruleName: 'rule 1',
      severity: 'HIGH',
      pendingSince: '2026-11-22T10:00:30.000Z',
      suppressedUntil: null,
      reason: 'pending since 2026-11-22T10:00:30.000Z',
    },
  ]);
  t.equal(engine.statusOf(1, clock.now())?.reason, 'pending since 2026-11-22T10:00:30.000Z');
  t.equal(engine.statusOf(1)?.reason, undefined, 'no time given, no reason');
  t.end();
});

void t.test('a rule held back by its suppression window: suppressed until', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + 30 * SECOND);
  aggregator.record(mix(T0, 5, 5));
  const engine = new RuleEngine();
  engine.setRules([
    activeRule(1, leaf('errorRate', 'GREATER_THAN', 20, 1), { suppressionWindowMinutes: 5 }),
  ]);
  t.equal(engine.tick(aggregator, clock.now()).length, 1, 'fires');
  t.same(engine.pending(clock.now()), [], 'FIRING is not PENDING');
  const resolved: AlertResolution[] = [];
  clock.set(T0 + MINUTE);
  engine.tick(aggregator, clock.now(), resolved);
  t.equal(resolved.length, 1, 'resolves');
  aggregator.record(mix(T0 + MINUTE + 10 * SECOND, 5, 5));
  clock.set(T0 + MINUTE + 20 * SECOND);
  t.same(engine.tick(aggregator, clock.now()), [], 'suppressed');
  const [held] = engine.pending(clock.now());
  t.equal(held?.suppressedUntil, '2026-11-22T10:05:30.000Z');
  t.match(held?.reason, /^pending since \S+, suppressed until 2026-11-22T10:05:30\.000Z/);
  t.end();
});
