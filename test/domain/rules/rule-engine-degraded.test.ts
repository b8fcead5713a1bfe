// DEGRADED (issue 23, docs/cluster-leader.md): while the view of the cluster's events is
// incomplete, the rules that count events are held as they are (no fire, no resolve) and say so;
// ratios and latencies go on; once the view is whole again the held rules continue from there.
import t from 'tap';
import type { AlertResolution } from '../../../src/domain/rules/alerts/alert.ts';
import { countsEvents } from '../../../src/domain/rules/partial-view.ts';
import { RuleEngine } from '../../../src/domain/rules/rule-engine.ts';
import { T0, SECOND, activeRule, leaf, node } from './engine-fixtures.ts';
import { fakeMetrics } from './fake-metrics.ts';

const fired = (engine: RuleEngine, values: Record<string, number>, now: number): number[] =>
  engine.tick(fakeMetrics({ values }), now).map((alert) => alert.ruleId);

void t.test('a count rule is held DEGRADED while the view is incomplete; a ratio is not', (t) => {
  const engine = new RuleEngine();
  engine.setRules([
    // "Traffic dropped": on a partial view it would fire on events that are only missing.
    activeRule(1, leaf('totalEvents', 'LESS_THAN', 100, 1)),
    activeRule(2, leaf('errorRate', 'GREATER_THAN', 20, 1)),
  ]);
  const low = { totalEvents: 10, errorRate: 30 };
  engine.setViewComplete(false);
  t.same(fired(engine, low, T0), [2], 'the ratio fires; the count is held');
  t.equal(engine.statusOf(1)?.state, 'DEGRADED', 'the held rule says why');
  t.equal(engine.statusOf(2)?.state, 'FIRING');
  t.same(fired(engine, low, T0 + SECOND), [], 'held on the next tick too');
  engine.setViewComplete(true);
  t.equal(engine.statusOf(1)?.state, 'OK', 'whole again: the held state shows');
  t.same(fired(engine, low, T0 + 2 * SECOND), [1], 'and it is evaluated again');
  t.end();
});

void t.test('a FIRING count rule neither resolves while DEGRADED, and resolves after', (t) => {
  const engine = new RuleEngine();
  engine.setRules([activeRule(1, leaf('eventsByType[checkout]', 'LESS_THAN', 5, 1))]);
  t.same(fired(engine, { 'eventsByType[checkout]': 1 }, T0), [1], 'fired on the whole view');
  engine.setViewComplete(false);
  const resolved: AlertResolution[] = [];
  const recovered = fakeMetrics({ values: { 'eventsByType[checkout]': 50 } });
  t.same(engine.tick(recovered, T0 + SECOND, resolved), []);
  t.same(resolved, [], 'not resolved on a partial view');
  t.equal(engine.statusOf(1)?.state, 'DEGRADED');
  engine.setViewComplete(true);
  t.equal(engine.statusOf(1)?.state, 'FIRING', 'it held FIRING');
  engine.tick(recovered, T0 + 2 * SECOND, resolved);
  t.same(
    resolved.map((r) => [r.ruleId, r.cause]),
    [[1, 'condition-cleared']],
    'resolves once whole',
  );
  t.end();
});

void t.test('which rules count events', (t) => {
  const threshold = (config: Record<string, unknown>): boolean =>
    countsEvents('THRESHOLD', activeRule(1, config).ruleConfig);
  t.ok(threshold(leaf('totalEvents', 'LESS_THAN', 1, 5)), 'a count');
  t.ok(threshold(leaf('eventsPerSecond', 'LESS_THAN', 1, 5)), 'a rate');
  t.ok(threshold(leaf('uniqueUsers', 'LESS_THAN', 1, 5)), 'a distinct count');
  t.ok(threshold(leaf('eventsBySource[web]', 'LESS_THAN', 1, 5)), 'an indexed count');
  t.ok(threshold(leaf('secondsSinceLastEvent', 'GREATER_THAN', 60)), 'a producer silence');
  t.notOk(threshold(leaf('errorRate', 'GREATER_THAN', 5, 5)), 'a ratio');
  t.notOk(threshold(leaf('latencyP95', 'GREATER_THAN', 500, 5)), 'a latency');
  t.ok(
    threshold(
      node('AND', leaf('errorRate', 'GREATER_THAN', 5, 5), leaf('totalEvents', 'GREATER_THAN', 9)),
    ),
    'any leaf that counts',
  );
  t.ok(
    countsEvents(
      'RATE_CHANGE',
      activeRule(1, leaf('totalEvents', 'LESS_THAN', -50, 5), {
        ruleType: 'RATE_CHANGE',
      }).ruleConfig,
    ),
    'a RATE_CHANGE of a count',
  );
  t.ok(countsEvents('ANOMALY', { metric: 'eventRate' }), 'an ANOMALY on the event rate');
  t.notOk(countsEvents('ANOMALY', { metric: 'errorRate' }), 'an ANOMALY on the error rate');
  t.notOk(countsEvents('PATTERN', { steps: [] }), 'a PATTERN completes no sequence on less');
  t.ok(
    countsEvents('PATTERN', { steps: [], absent: { eventType: 'paid' } }),
    "a PATTERN's awaited event would read absent",
  );
  t.end();
});
