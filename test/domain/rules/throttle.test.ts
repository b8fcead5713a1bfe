// Alert throttling (DESIGN 6): suppressionWindowMinutes and maxAlertsPerHour, driven through the
// live evaluator ticking every simulated second on a flapping condition (each incident lasts one
// second, so every other second a new one may fire: throttling counts incidents), and rebuilt
// from stored alert times.
import t from 'tap';
import type { WindowedMetrics } from '../../../src/domain/metrics/windows/window-reads.ts';
import { RuleEngine } from '../../../src/domain/rules/rule-engine.ts';
import type { ActiveRule } from '../../../src/domain/rules/rule.ts';
import { Throttle } from '../../../src/domain/rules/throttle.ts';
import { HOUR, MINUTE, SECOND, T0, activeRule, leaf } from './engine-fixtures.ts';

/** errorRate over the last minute > 20. */
const ERROR_RATE = leaf('errorRate', 'GREATER_THAN', 20, 1);

/**
 * Ticks `engine` every second from `from` (included) to `to` (excluded); the condition holds on
 * even seconds and not on odd ones (errorRate 100, then 0); returns the alerts' times, in seconds
 * from T0.
 */
function runSeconds(engine: RuleEngine, from: number, to: number): number[] {
  const fired: number[] = [];
  for (let now = from; now < to; now += SECOND) {
    const errorRate = ((now - T0) / SECOND) % 2 === 0 ? 100 : 0;
    const live: WindowedMetrics = {
      valuesOf: () => ({ get: () => errorRate }),
      hasKey: () => true,
    };
    for (const alert of engine.tick(live, now)) fired.push((alert.triggeredAt - T0) / SECOND);
  }
  return fired;
}

function setup(rule: Partial<ActiveRule>) {
  const engine = new RuleEngine();
  engine.setRules([activeRule(1, ERROR_RATE, rule)]);
  return { engine };
}

void t.test('suppression 5 min: a condition holding for 10 minutes fires twice', (t) => {
  const { engine } = setup({
    suppressionWindowMinutes: 5,
    maxAlertsPerHour: 10,
  });
  const fired = runSeconds(engine, T0, T0 + 10 * MINUTE);
  t.same(fired, [0, 300], 'at the start and exactly 5 minutes later');
  t.end();
});

void t.test('maxAlertsPerHour 3, no suppression: 3 in the hour, again after it', (t) => {
  const { engine } = setup({
    suppressionWindowMinutes: 0,
    maxAlertsPerHour: 3,
  });
  const firstHour = runSeconds(engine, T0, T0 + HOUR);
  t.same(firstHour, [0, 2, 4], 'exactly 3 within the first hour');
  t.match(engine.throttleNote(1, T0 + HOUR - 1), /^maxAlertsPerHour 3 reached/);
  const later = runSeconds(engine, T0 + HOUR, T0 + 2 * HOUR);
  t.same(later, [3600, 3602, 3604], 'each alert leaves the hour 60 minutes after it fired');
  t.end();
});

void t.test('both limits together: the stricter one wins', (t) => {
  const { engine } = setup({
    suppressionWindowMinutes: 10,
    maxAlertsPerHour: 4,
  });
  const fired = runSeconds(engine, T0, T0 + 2 * HOUR);
  // Every 10 min, at most 4 in any 60 minutes: 0, 10, 20, 30, then 60 (the alert at 0 left).
  t.same(
    fired.map((s) => s / 60),
    [0, 10, 20, 30, 60, 70, 80, 90],
  );
  t.end();
});

void t.test('a suppression window longer than the hour', (t) => {
  const { engine } = setup({
    suppressionWindowMinutes: 90,
    maxAlertsPerHour: 10,
  });
  const fired = runSeconds(engine, T0, T0 + 3 * HOUR + MINUTE);
  t.same(
    fired.map((s) => s / 60),
    [0, 90, 180],
    'every 90 minutes: the last alert is remembered past the hour',
  );

  const restarted = new RuleEngine();
  restarted.setRules([
    activeRule(1, ERROR_RATE, {
      suppressionWindowMinutes: 90,
      recentAlerts: [T0 + 3 * HOUR - 80 * MINUTE],
    }),
  ]);
  t.same(
    runSeconds(restarted, T0 + 3 * HOUR, T0 + 3 * HOUR + 11 * MINUTE),
    [(3 * HOUR + 10 * MINUTE) / SECOND],
    'a stored alert older than the hour still suppresses after a restart',
  );
  t.end();
});

void t.test('a rebuilt engine (restart) keeps throttling from the stored alert times', (t) => {
  const { engine } = setup({ suppressionWindowMinutes: 5 });
  t.same(runSeconds(engine, T0, T0 + MINUTE), [0]);

  // "Restart": a new engine, the rule loaded with its stored alerts of the last hour.
  const restarted = new RuleEngine();
  restarted.setRules([
    activeRule(1, ERROR_RATE, { suppressionWindowMinutes: 5, recentAlerts: [T0] }),
  ]);
  t.same(
    runSeconds(restarted, T0 + MINUTE, T0 + 10 * MINUTE),
    [300],
    'still suppressed until 5 minutes after the stored alert',
  );

  const capped = new RuleEngine();
  const stored = [T0 - 50 * MINUTE, T0 - 40 * MINUTE, T0 - 30 * MINUTE];
  capped.setRules([activeRule(1, ERROR_RATE, { maxAlertsPerHour: 3, recentAlerts: stored })]);
  t.same(
    runSeconds(capped, T0, T0 + 15 * MINUTE),
    [600],
    'the cap counts stored alerts; frees up when the oldest is an hour old',
  );
  t.end();
});

void t.test('Throttle on its own', async (t) => {
  const limits = { suppressionWindowMinutes: 5, maxAlertsPerHour: 2 };

  await t.test('a rule that never fired may fire', (t) => {
    t.equal(new Throttle().heldBack(limits, T0), null);
    t.same(new Throttle().alertTimes(T0), []);
    t.end();
  });

  await t.test('suppression: held back until exactly suppressionWindowMinutes later', (t) => {
    const throttle = new Throttle();
    throttle.fired(T0);
    t.equal(
      throttle.heldBack(limits, T0 + 5 * MINUTE - 1),
      'suppressed until 2026-11-22T10:05:00.000Z (suppressionWindowMinutes 5)',
    );
    t.equal(throttle.heldBack(limits, T0 + 5 * MINUTE), null);
    t.equal(throttle.heldBack({ ...limits, suppressionWindowMinutes: 0 }, T0), null, '0 = none');
    t.end();
  });

  await t.test('the hourly cap counts the last 60 minutes only', (t) => {
    const throttle = new Throttle();
    throttle.fired(T0);
    throttle.fired(T0 + 10 * MINUTE);
    const noSuppression = { ...limits, suppressionWindowMinutes: 0 };
    t.equal(
      throttle.heldBack(noSuppression, T0 + HOUR - 1),
      'maxAlertsPerHour 2 reached in the last 60 minutes',
    );
    t.equal(throttle.heldBack(noSuppression, T0 + HOUR), null, 'the first alert left the hour');
    t.same(throttle.alertTimes(T0 + HOUR), [T0 + 10 * MINUTE]);
    t.end();
  });

  await t.test('stored alert times, in any order, rebuild the same state', (t) => {
    const throttle = new Throttle([T0 + 2 * MINUTE, T0 - 2 * HOUR, T0]);
    t.same(throttle.alertTimes(T0 + 3 * MINUTE), [T0, T0 + 2 * MINUTE], 'sorted, old ones gone');
    t.equal(
      throttle.heldBack(limits, T0 + 3 * MINUTE),
      'suppressed until 2026-11-22T10:07:00.000Z (suppressionWindowMinutes 5)',
      'suppressed from the latest one',
    );
    t.end();
  });
});
