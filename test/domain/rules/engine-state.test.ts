// The rule engine's part of a metrics checkpoint (issue 33): after a restart a PENDING rule keeps
// its pending time, a FIRING one its clearing time; the stored alerts still decide FIRING.
import t from 'tap';
import { deserialize, serialize } from 'node:v8';
import type { WindowedMetrics } from '../../../src/domain/metrics/windows/window-reads.ts';
import type { AlertResolution } from '../../../src/domain/rules/alerts/alert.ts';
import { RuleEngine } from '../../../src/domain/rules/rule-engine.ts';
import { restoreEngineState, takeEngineState } from '../../../src/domain/rules/engine-state.ts';
import type { ActiveRule } from '../../../src/domain/rules/rule.ts';
import { SECOND, T0, activeRule, leaf } from './engine-fixtures.ts';

const metricsOf = (value: () => number): WindowedMetrics => ({
  valuesOf: () => ({ get: () => value() }),
  hasKey: () => true,
});

/** Ticks at T0 + each second given, with the value given; answers the seconds it fired at. */
function run(engine: RuleEngine, from: number, values: readonly number[]) {
  let current = 0;
  const live = metricsOf(() => current);
  const fired: number[] = [];
  const resolved: AlertResolution[] = [];
  values.forEach((value, i) => {
    current = value;
    const second = from + i;
    for (const alert of engine.tick(live, T0 + second * SECOND, resolved)) {
      fired.push((alert.triggeredAt - T0) / SECOND);
    }
  });
  return { fired, resolved: resolved.map((r) => (r.resolvedAt - T0) / SECOND) };
}

const rule = (extra: Partial<ActiveRule> = {}): ActiveRule =>
  activeRule(
    1,
    { ...leaf('errorRate', 'GREATER_THAN', 5, 5), pendingSeconds: 10, keepFiringSeconds: 10 },
    extra,
  );

/** Through v8, as the checkpoint carries it. */
const saved = (engine: RuleEngine): unknown => deserialize(serialize(takeEngineState(engine)));

void t.test('a PENDING rule keeps its pending time across a restart', (t) => {
  const before = new RuleEngine();
  before.setRules([rule()]);
  t.same(run(before, 0, [9, 9, 9, 9]).fired, [], 'PENDING from 0');
  const after = new RuleEngine();
  after.setRules([rule()]);
  t.equal(restoreEngineState(after, saved(before)), 1);
  t.equal(after.stateOf(1), 'PENDING');
  t.same(run(after, 6, [9, 9, 9, 9, 9]).fired, [10], 'fires 10 s after 0, not after the restart');
  const fresh = new RuleEngine();
  fresh.setRules([rule()]);
  t.same(run(fresh, 6, [9, 9, 9, 9, 9]).fired, [], 'without the checkpoint it would wait anew');
  t.end();
});

void t.test('a FIRING rule keeps its clearing time; the stored alerts decide FIRING', (t) => {
  const before = new RuleEngine();
  before.setRules([rule()]);
  t.same(run(before, 0, [9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 0, 0, 0]).fired, [10]);
  const state = saved(before);
  // The restart: the stored alerts say FIRING since 10 (rule-engine.ts starts it so).
  const after = new RuleEngine();
  after.setRules([rule({ firingSince: T0 + 10 * SECOND })]);
  t.equal(restoreEngineState(after, state), 1);
  t.same(run(after, 20, [0, 0, 0]).resolved, [21], 'false since 11: resolves 10 s later');
  // An incident resolved after the checkpoint (no open incident stored): not restored FIRING.
  const resolvedSince = new RuleEngine();
  resolvedSince.setRules([rule()]);
  t.equal(restoreEngineState(resolvedSince, state), 0);
  t.equal(resolvedSince.stateOf(1), 'OK');
  // Another version of the rule: its lifecycle starts anew.
  const edited = new RuleEngine();
  edited.setRules([rule({ version: 2, firingSince: T0 + 10 * SECOND })]);
  t.equal(restoreEngineState(edited, state), 0);
  t.equal(restoreEngineState(edited, 'nonsense'), 0, 'a malformed state restores nothing');
  t.end();
});

void t.test('a FIRING rule still holding at the checkpoint waits before it may resolve', (t) => {
  const before = new RuleEngine();
  before.setRules([rule()]);
  t.same(run(before, 0, [9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9]).fired, [10]);
  const state = saved(before);
  const after = new RuleEngine();
  after.setRules([rule({ firingSince: T0 + 10 * SECOND })]);
  t.equal(restoreEngineState(after, state), 1);
  // What it watches may be incomplete right after the start: false now is no recovery yet.
  t.same(run(after, 20, Array<number>(30).fill(0)).resolved, [], 'no resolve in 30 s');
  t.equal(after.stateOf(1), 'FIRING');
  // Once seen true, the wait is over: 10 s of false then resolve it.
  t.same(run(after, 50, [9, ...Array<number>(12).fill(0)]).resolved, [61]);
  t.end();
});
