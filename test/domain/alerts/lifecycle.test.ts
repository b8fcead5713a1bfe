// The alert lifecycle (issue 18) with an injected clock: OK → PENDING → FIRING → RESOLVED on its
// own, and through the live evaluator: pendingSeconds, keepFiringSeconds, hysteresis with a
// recoveryThreshold, the values at recovery, a paused / archived rule resolving, a restart
// rebuilding FIRING, and throttling holding a rule PENDING.
import t from 'tap';
import type { WindowedMetrics } from '../../../src/domain/metrics/windows/window-reads.ts';
import type { AlertResolution } from '../../../src/domain/rules/alerts/alert.ts';
import { RuleLifecycle } from '../../../src/domain/rules/alerts/lifecycle.ts';
import { RuleEngine } from '../../../src/domain/rules/rule-engine.ts';
import { SECOND, T0, activeRule, leaf } from '../rules/engine-fixtures.ts';

const times = (pendingSeconds: number, keepFiringSeconds: number, restoreSeconds = 0) => ({
  pendingMs: pendingSeconds * SECOND,
  keepFiringMs: keepFiringSeconds * SECOND,
  restoreMs: restoreSeconds * SECOND,
});

void t.test('RuleLifecycle: the defaults fire at once and resolve at once', (t) => {
  const lifecycle = new RuleLifecycle();
  const now = times(0, 0);
  t.equal(lifecycle.observe(false, T0, now), null);
  t.equal(lifecycle.state, 'OK');
  t.equal(lifecycle.observe(true, T0, now), 'fire', 'pendingSeconds 0: the first true fires');
  lifecycle.fired(T0);
  t.equal(lifecycle.state, 'FIRING');
  t.equal(lifecycle.firedAt, T0);
  t.equal(lifecycle.observe(true, T0 + SECOND, now), null, 'one incident while it holds');
  t.equal(lifecycle.observe(false, T0 + 2 * SECOND, now), 'resolve');
  t.equal(lifecycle.state, 'OK');
  t.end();
});

void t.test('RuleLifecycle: pendingSeconds', (t) => {
  const lifecycle = new RuleLifecycle();
  const pending = times(60, 0);
  t.equal(lifecycle.observe(true, T0, pending), null);
  t.equal(lifecycle.state, 'PENDING');
  t.equal(lifecycle.observe(true, T0 + 59 * SECOND, pending), null, 'held 59 s: still PENDING');
  t.equal(lifecycle.observe(false, T0 + 59.5 * SECOND, pending), null, 'a false evaluation');
  t.equal(lifecycle.state, 'OK', '... back to OK: the pending period starts again');
  t.equal(lifecycle.observe(true, T0 + 60 * SECOND, pending), null);
  t.equal(lifecycle.observe(true, T0 + 119 * SECOND, pending), null);
  t.equal(lifecycle.observe(true, T0 + 120 * SECOND, pending), 'fire', 'held 60 s: fires');
  t.equal(lifecycle.state, 'PENDING', 'until the evaluator says it fired (throttling may not)');
  t.equal(lifecycle.observe(true, T0 + 121 * SECOND, pending), 'fire');
  lifecycle.fired(T0 + 121 * SECOND);
  t.equal(lifecycle.state, 'FIRING');
  t.end();
});

void t.test('RuleLifecycle: keepFiringSeconds', (t) => {
  const lifecycle = RuleLifecycle.firingSince(T0);
  const keep = times(0, 30);
  t.equal(lifecycle.state, 'FIRING', 'rebuilt FIRING (a restart)');
  t.equal(lifecycle.observe(false, T0 + 10 * SECOND, keep), null, 'false for 0 s');
  t.equal(lifecycle.observe(false, T0 + 39 * SECOND, keep), null, 'false for 29 s');
  t.equal(lifecycle.observe(true, T0 + 40 * SECOND, keep), null, 'true again: the count restarts');
  t.equal(lifecycle.observe(false, T0 + 41 * SECOND, keep), null);
  t.equal(lifecycle.observe(false, T0 + 70 * SECOND, keep), null, 'false for 29 s');
  t.equal(lifecycle.observe(false, T0 + 71 * SECOND, keep), 'resolve', 'false for 30 s');
  t.equal(lifecycle.state, 'OK');
  t.end();
});

void t.test('RuleLifecycle: restored FIRING, an empty window is no recovery', (t) => {
  const window = times(0, 0, 300);
  const waiting = RuleLifecycle.firingSince(T0 - 600 * SECOND);
  t.equal(waiting.observe(false, T0, window), null, 'no data after the restart');
  t.equal(waiting.observe(false, T0 + 299 * SECOND, window), null, 'not a whole window yet');
  t.equal(waiting.observe(false, T0 + 300 * SECOND, window), 'resolve', 'a whole window observed');

  const seen = RuleLifecycle.firingSince(T0 - 600 * SECOND);
  t.equal(seen.observe(true, T0, window), null, 'true on the new data');
  t.equal(seen.observe(false, T0 + SECOND, window), 'resolve', 'then false: a real recovery');

  const fresh = new RuleLifecycle();
  fresh.observe(true, T0, window);
  fresh.fired(T0);
  t.equal(fresh.observe(false, T0 + SECOND, window), 'resolve', 'not restored: no wait');
  t.end();
});

/** Live metrics whose every value is `value()` at the moment of the tick. */
const metricsOf = (value: () => number): WindowedMetrics => ({
  valuesOf: () => ({ get: () => value() }),
  hasKey: () => true,
});

/** Ticks once a second over `values`, from T0; answers what fired and resolved at which second. */
function run(engine: RuleEngine, values: readonly number[]) {
  let current = 0;
  const live = metricsOf(() => current);
  const fired: number[] = [];
  const resolved: AlertResolution[] = [];
  values.forEach((value, second) => {
    current = value;
    for (const alert of engine.tick(live, T0 + second * SECOND, resolved)) {
      fired.push((alert.triggeredAt - T0) / SECOND);
    }
  });
  return { fired, resolved: resolved.map((r) => ({ ...r, at: (r.resolvedAt - T0) / SECOND })) };
}

void t.test('the evaluator: hysteresis fires above 0.05 and resolves below 0.03', (t) => {
  const engine = new RuleEngine();
  engine.setRules([
    activeRule(1, { ...leaf('errorRate', 'GREATER_THAN', 0.05, 5), recoveryThreshold: 0.03 }),
  ]);
  //                                0     1     2     3     4     5     6     7
  const { fired, resolved } = run(engine, [0.04, 0.06, 0.04, 0.05, 0.031, 0.03, 0.04, 0.06]);
  t.same(fired, [1, 7], 'fires above 0.05; the dips to 0.04 .. 0.031 do not resolve it');
  t.equal(resolved.length, 1);
  t.match(resolved[0], {
    ruleId: 1,
    at: 5,
    cause: 'condition-cleared',
    valuesAtResolve: { errorRate: 0.03 },
    resolveExplanation: { comparedWith: 0.03, recoveryThreshold: 0.03, value: 0.03, result: false },
  });
  t.end();
});

void t.test('the evaluator: pendingSeconds and keepFiringSeconds from ruleConfig', (t) => {
  const engine = new RuleEngine();
  engine.setRules([
    activeRule(1, {
      ...leaf('errorRate', 'GREATER_THAN', 5, 5),
      pendingSeconds: 3,
      keepFiringSeconds: 2,
    }),
  ]);
  //                                      0  1  2  3  4  5  6  7  8  9  10 11
  const { fired, resolved } = run(engine, [9, 9, 0, 9, 9, 9, 9, 0, 9, 0, 0, 0]);
  t.same(fired, [6], 'true from 3 on: PENDING at 3, FIRING at 6 (3 s later)');
  t.same(
    resolved.map((r) => [r.at, r.valuesAtResolve]),
    [[11, { errorRate: 0 }]],
    'false at 7, true at 8, false from 9: resolved at 11, 2 s after 9, with the value then',
  );
  t.end();
});

void t.test('the evaluator: the explanation of the firing alert, in a tree and in words', (t) => {
  const engine = new RuleEngine();
  engine.setRules([activeRule(1, leaf('errorRate', 'GREATER_THAN', 0.05, 5))]);
  const [alert] = engine.tick(
    metricsOf(() => 0.083),
    T0,
  );
  t.equal(alert?.explanationText, 'errorRate over 5 min = 0.083 > 0.05');
  t.match(alert?.explanation, { metric: 'errorRate', value: 0.083, result: true });
  t.end();
});

void t.test('a paused, archived or deleted rule: the engine answers its FIRING id', (t) => {
  const engine = new RuleEngine();
  const firing = leaf('errorRate', 'GREATER_THAN', 1, 5);
  engine.setRules([activeRule(1, firing), activeRule(2, firing), activeRule(3, firing)]);
  t.equal(
    engine.tick(
      metricsOf(() => 9),
      T0,
    ).length,
    3,
  );
  engine.setRules([activeRule(1, firing), activeRule(2, firing), activeRule(3, firing)]);
  t.same(engine.putRules([1], []), [1], 'rule 1 left (paused): its incident is to be resolved');
  t.same(engine.putRules([1], []), [], 'only once');
  t.same(engine.setRules([activeRule(3, firing)]), [2], 'a whole reload without rule 2');
  // Enabled again: a new incident, fired by the next true evaluation.
  engine.putRules([1], [activeRule(1, firing)]);
  t.same(
    engine
      .tick(
        metricsOf(() => 9),
        T0 + SECOND,
      )
      .map((a) => a.ruleId),
    [1],
  );
  t.end();
});

void t.test('a restart: a rule with an open incident is FIRING and resolves normally', (t) => {
  const engine = new RuleEngine();
  engine.setRules([activeRule(1, leaf('errorRate', 'GREATER_THAN', 1, 5), { firingSince: T0 })]);
  t.equal(engine.stateOf(1), 'FIRING');
  const { fired, resolved } = run(engine, [9, 9, 0]);
  t.same(fired, [], 'no second incident');
  t.same(
    resolved.map((r) => r.at),
    [2],
  );
  // Without data after the restart it waits for its 5-minute window before it may resolve.
  const quiet = new RuleEngine();
  quiet.setRules([activeRule(1, leaf('errorRate', 'GREATER_THAN', 1, 5), { firingSince: T0 })]);
  const zeros = run(
    quiet,
    Array.from({ length: 301 }, () => 0),
  );
  t.same(
    zeros.resolved.map((r) => r.at),
    [300],
  );
  t.end();
});

void t.test('throttling holds a rule PENDING; it fires once allowed', (t) => {
  const engine = new RuleEngine();
  engine.setRules([
    activeRule(1, leaf('errorRate', 'GREATER_THAN', 1, 5), {
      suppressionWindowMinutes: 1,
      recentAlerts: [T0 - 55 * SECOND],
    }),
  ]);
  const { fired } = run(engine, [9, 9, 9, 9, 9, 9, 9]);
  t.same(fired, [5], 'suppressed until 60 s after the stored alert');
  t.equal(engine.stateOf(1), 'FIRING');
  t.end();
});
