// Alert throttling (DESIGN 6, issue 18 section 3): suppressionWindowMinutes holds incidents back;
// maxAlertsPerHour is a notification budget (incidents past it fire, held back from the channels,
// then one DIGEST). Driven through the live evaluator ticking every simulated second on a flapping
// condition (each incident lasts one second, so every other second a new one may fire), and
// rebuilt from stored alert times.
import t from 'tap';
import type { WindowedMetrics } from '../../../src/domain/metrics/windows/window-reads.ts';
import type { DigestDue } from '../../../src/domain/rules/alerts/alert.ts';
import { RuleEngine } from '../../../src/domain/rules/rule-engine.ts';
import type { ActiveRule } from '../../../src/domain/rules/rule.ts';
import { Throttle } from '../../../src/domain/rules/alerts/throttle.ts';
import { HOUR, MINUTE, SECOND, T0, activeRule, leaf } from '../rules/engine-fixtures.ts';

/** errorRate over the last minute > 20. */
const ERROR_RATE = leaf('errorRate', 'GREATER_THAN', 20, 1);

/** What ticking did, times in seconds from T0. */
interface Run {
  /** Every incident that fired. */
  readonly fired: number[];
  /** Those of them the budget let be notified. */
  readonly notified: number[];
  readonly digests: DigestDue[];
}

/**
 * Ticks `engine` every second from `from` (included) to `to` (excluded); the condition holds on
 * even seconds and not on odd ones (errorRate 100, then 0).
 */
function run(engine: RuleEngine, from: number, to: number, holds = true): Run {
  const out: Run = { fired: [], notified: [], digests: [] };
  for (let now = from; now < to; now += SECOND) {
    const errorRate = holds && ((now - T0) / SECOND) % 2 === 0 ? 100 : 0;
    const live: WindowedMetrics = {
      valuesOf: () => ({ get: () => errorRate }),
      hasKey: () => true,
    };
    for (const alert of engine.tick(live, now, [], out.digests)) {
      const at = (alert.triggeredAt - T0) / SECOND;
      out.fired.push(at);
      if (!alert.heldByBudget) out.notified.push(at);
    }
  }
  return out;
}

/** The incidents' times, in seconds from T0. */
const runSeconds = (engine: RuleEngine, from: number, to: number): number[] =>
  run(engine, from, to).fired;

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

void t.test('maxAlertsPerHour 3: every incident fires, 3 notified an hour, one digest', (t) => {
  const { engine } = setup({
    suppressionWindowMinutes: 0,
    maxAlertsPerHour: 3,
  });
  // Flapping for 20 seconds: 10 incidents.
  const first = run(engine, T0, T0 + 20 * SECOND);
  t.same(first.fired, [0, 2, 4, 6, 8, 10, 12, 14, 16, 18], 'every incident is recorded');
  t.same(first.notified, [0, 2, 4], 'the first 3 are notified');
  t.match(
    engine.throttleNote(1, T0 + HOUR - 1),
    /^maxAlertsPerHour 3 reached .* held for the digest/,
  );
  const quiet = run(engine, T0 + 20 * SECOND, T0 + HOUR + 10 * SECOND, false);
  t.same(quiet.fired, [], 'nothing more fires');
  t.equal(quiet.digests.length, 1, 'one digest, when the budget has room again');
  t.match(quiet.digests[0], {
    ruleId: 1,
    maxAlertsPerHour: 3,
    since: T0 + 6 * SECOND,
    until: T0 + HOUR,
  });
  const later = run(engine, T0 + HOUR + 10 * SECOND, T0 + HOUR + 20 * SECOND);
  t.same(later.notified, [3610, 3612, 3614], 'the budget is free again: the next are notified');
  t.same(later.digests, [], 'the held ones were in the digest already');
  t.end();
});

void t.test('5 incidents with maxAlertsPerHour 2: 2 notified, then one DIGEST of 3', (t) => {
  const { engine } = setup({ suppressionWindowMinutes: 0, maxAlertsPerHour: 2 });
  const incidents = run(engine, T0, T0 + 10 * SECOND);
  t.same(incidents.fired, [0, 2, 4, 6, 8]);
  t.same(incidents.notified, [0, 2]);
  t.same(run(engine, T0 + 10 * SECOND, T0 + HOUR, false).digests, [], 'not before the hour');
  const due = run(engine, T0 + HOUR, T0 + HOUR + SECOND, false).digests;
  t.match(due, [{ since: T0 + 4 * SECOND, until: T0 + HOUR }], 'the hour of the first ended');
  t.end();
});

void t.test('both limits together: the stricter one wins', (t) => {
  const { engine } = setup({
    suppressionWindowMinutes: 10,
    maxAlertsPerHour: 4,
  });
  const { fired, notified, digests } = run(engine, T0, T0 + 2 * HOUR);
  t.same(
    fired.map((s) => s / 60),
    [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110],
    'suppression: one incident every 10 min',
  );
  // At most 4 notified in any 60 minutes: 0, 10, 20, 30, then 60 (the alert at 0 left).
  t.same(
    notified.map((s) => s / 60),
    [0, 10, 20, 30, 60, 70, 80, 90],
  );
  t.same(
    digests.map((d) => [(d.since - T0) / MINUTE, (d.until - T0) / MINUTE]),
    [[40, 60]],
    'the held-back 40 and 50 in a digest when 0 left the hour',
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
  capped.setRules([
    activeRule(1, ERROR_RATE, {
      maxAlertsPerHour: 3,
      recentAlerts: stored,
      heldSince: T0 - 20 * MINUTE,
      suppressionWindowMinutes: 5,
    }),
  ]);
  const after = run(capped, T0, T0 + 15 * MINUTE);
  t.same(after.fired, [0, 300, 600], 'suppression goes on from the stored last alert');
  t.same(
    after.notified,
    [600],
    'the budget counts stored alerts; frees up an hour after the oldest',
  );
  t.match(
    after.digests,
    [{ since: T0 - 20 * MINUTE, until: T0 + 10 * MINUTE }],
    'incidents held before the restart get their digest',
  );
  t.end();
});

void t.test('Throttle on its own', async (t) => {
  const limits = { suppressionWindowMinutes: 5, maxAlertsPerHour: 2 };
  const noSuppression = { ...limits, suppressionWindowMinutes: 0 };

  await t.test('a rule that never fired may fire and be notified', (t) => {
    t.equal(new Throttle().note(limits, T0), null);
    t.equal(new Throttle().fired(limits, T0), 'notify');
    t.end();
  });

  await t.test('suppression: held back until exactly suppressionWindowMinutes later', (t) => {
    const throttle = new Throttle();
    throttle.fired(limits, T0);
    t.equal(
      throttle.suppressed(limits, T0 + 5 * MINUTE - 1),
      'suppressed until 2026-11-22T10:05:00.000Z (suppressionWindowMinutes 5)',
    );
    t.equal(throttle.suppressed(limits, T0 + 5 * MINUTE), null);
    t.equal(throttle.suppressed(noSuppression, T0), null, '0 = none');
    t.end();
  });

  await t.test('the budget counts the notified incidents of the last 60 minutes only', (t) => {
    const throttle = new Throttle();
    t.equal(throttle.fired(noSuppression, T0), 'notify');
    t.equal(throttle.fired(noSuppression, T0 + 10 * MINUTE), 'notify');
    t.match(throttle.budgetSpent(noSuppression, T0 + HOUR - 1), /^maxAlertsPerHour 2 reached/);
    t.equal(throttle.fired(noSuppression, T0 + 20 * MINUTE), 'hold');
    t.equal(throttle.fired(noSuppression, T0 + 30 * MINUTE), 'hold', 'held ones use no budget');
    t.equal(throttle.digestDue(noSuppression, T0 + HOUR - 1), null, 'no room yet');
    t.equal(throttle.digestDue(noSuppression, T0 + HOUR), T0 + 20 * MINUTE, 'room: digest due');
    t.equal(throttle.digestDue(noSuppression, T0 + HOUR), null, 'once');
    t.equal(throttle.fired(noSuppression, T0 + HOUR), 'notify', 'the first alert left the hour');
    t.end();
  });

  await t.test('stored alert times, in any order, rebuild the same state', (t) => {
    const throttle = new Throttle({ recentAlerts: [T0 + 2 * MINUTE, T0 - 2 * HOUR, T0] });
    t.equal(
      throttle.suppressed(limits, T0 + 3 * MINUTE),
      'suppressed until 2026-11-22T10:07:00.000Z (suppressionWindowMinutes 5)',
      'suppressed from the latest one',
    );
    t.match(throttle.budgetSpent(limits, T0 + 3 * MINUTE), /reached/, 'the old one is gone');
    t.equal(throttle.budgetSpent(limits, T0 + HOUR), null, 'room once T0 left the hour');
    t.end();
  });

  await t.test('a held-back incident older than the budget is due at once after a restart', (t) => {
    const throttle = new Throttle({ recentAlerts: [], lastAlertAt: T0, heldSince: T0 });
    t.equal(throttle.digestDue(limits, T0 + HOUR), T0);
    t.end();
  });
});
