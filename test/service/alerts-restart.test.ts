// Alert state survives a restart (DESIGN 6, issue 18): a real service fires, is stopped, and a new
// service on the same schema rebuilds each rule's lifecycle and throttling from the stored alerts.
// A rule FIRING before is FIRING after (no second incident) and resolves later, the same alert;
// suppression and the hourly cap still hold back a rule whose incident had resolved, while a fresh
// rule with the same condition fires.
import t from 'tap';
import { rulesApi } from '../support/rules.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { alertsOf, evaluationsPass, pumpErrors, waitUntil } from './alerts-helpers.ts';

const EVALUATION_MS = 200;
const env = { RULE_EVALUATION_MS: String(EVALUATION_MS) };

const rule = (name: string, extra: Record<string, unknown>) => ({
  name,
  ruleType: 'THRESHOLD',
  ruleConfig: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 20, windowMinutes: 1 },
  severity: 'HIGH',
  ...extra,
});

/** A reset zeroes the metrics: every errorRate condition is false at the next evaluation. */
async function clearConditions(svc: TestService): Promise<void> {
  const res = await svc.request('/api/v1/metrics/reset', { method: 'POST' });
  if (res.status !== 200) throw new Error(`reset: ${res.status}`);
}

void t.test('lifecycle and throttling are rebuilt from stored alerts', async (t) => {
  const before = await startTestService(t, env);
  const api = rulesApi(before);
  // Suppressed for 2 hours; its one alert (stored below, while no service runs) is 90 minutes old.
  const long = await api.create(rule('Long suppression', { suppressionWindowMinutes: 120 }));
  await api.action(long.id, 'disable');
  const suppressed = await api.create(
    rule('Suppressed', { suppressionWindowMinutes: 30, maxAlertsPerHour: 10 }),
  );
  // Over 5 minutes, as 'Firing across' below: its second incident stays open across the restart
  // however long the restart takes (a 1-minute window restored from the checkpoint may empty first).
  const capped = await api.create(
    rule('Capped', {
      suppressionWindowMinutes: 0,
      maxAlertsPerHour: 1,
      ruleConfig: {
        metric: 'errorRate',
        operator: 'GREATER_THAN',
        threshold: 20,
        windowMinutes: 5,
      },
    }),
  );
  const pump = pumpErrors(before);
  try {
    await waitUntil(
      async () => [
        (await alertsOf(before, suppressed.id)).length,
        (await alertsOf(before, capped.id)).length,
      ],
      ([s, c]) => s === 1 && c === 1,
      'one incident of each rule',
    );
  } finally {
    await pump.stop();
  }
  await clearConditions(before);
  await waitUntil(
    async () => [
      ...(await alertsOf(before, suppressed.id)),
      ...(await alertsOf(before, capped.id)),
    ],
    (alerts) => alerts.every((a) => a.state === 'RESOLVED'),
    'both incidents resolved',
  );
  // This one stays FIRING across the restart.
  // Over 5 minutes: a minute boundary does not clear it (a 1-minute window starts empty).
  const firing = await api.create(
    rule('Firing across', {
      suppressionWindowMinutes: 0,
      ruleConfig: {
        metric: 'errorRate',
        operator: 'GREATER_THAN',
        threshold: 20,
        windowMinutes: 5,
      },
    }),
  );
  const pump1 = pumpErrors(before);
  let incident;
  try {
    [incident] = await waitUntil(
      () => alertsOf(before, firing.id),
      (a) => a.length === 1,
      'the incident that stays open',
    );
  } finally {
    await pump1.stop();
  }
  const never = { metric: 'totalEvents', operator: 'LESS_THAN', threshold: 0 };
  const pausedId = (await api.create(rule('Paused while down', { ruleConfig: never }))).id;
  await api.action(pausedId, 'disable');
  await before.service.stop();
  const [fired] = await before.db.sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM alerts WHERE rule_id = ${long.id}`;
  t.equal(fired?.n, 0, 'the paused rule never fired');
  const ninetyMinutesAgo = new Date(Date.now() - 90 * 60_000);
  await before.db.sql`
    INSERT INTO alerts (rule_id, rule_name, rule_version, severity, triggered_at, state,
                        resolved_at, resolved_reason, matched_conditions, current_values,
                        condition_text, message)
    VALUES (${long.id}, 'Long suppression', 1, 'HIGH', ${ninetyMinutesAgo}, 'RESOLVED',
            ${ninetyMinutesAgo}, 'condition cleared', '["errorRate 100 > 20"]',
            '{"errorRate": 100}', 'errorRate > 20 [1 min]', 'old')`;

  // Open incidents whose rule is not ACTIVE (paused, or deleted, while no service ran).
  for (const ruleId of [pausedId, 999_999]) {
    await before.db.sql`
      INSERT INTO alerts (rule_id, rule_name, rule_version, severity, triggered_at, state,
                          matched_conditions, current_values, condition_text, message)
      VALUES (${ruleId}, 'orphan', 1, 'HIGH', now(), 'FIRING', '["x"]', '{}', 'x', 'x')`;
  }

  const after = await startTestService(t, env, { database: before.db });
  const orphans = await waitUntil(
    async () => [...(await alertsOf(after, pausedId)), ...(await alertsOf(after, 999_999))],
    (alerts) => alerts.every((a) => a.state === 'RESOLVED'),
    'the open incidents of rules not ACTIVE to resolve at start',
  );
  t.same(
    orphans.map((a) => a.resolvedReason),
    ['rule paused', 'rule deleted'],
  );
  const api2 = rulesApi(after);
  await api2.action(long.id, 'enable');
  t.equal((await api2.get(suppressed.id)).triggerCount, 1, 'the counts are stored');
  // Its second incident fired while errors were pumped for 'Firing across': held by the budget.
  t.equal((await api2.get(capped.id)).triggerCount, 2);
  t.match((await api2.testStored(firing.id)).message, /The rule is FIRING/);

  // The same condition in a rule without history fires on the new service: the condition holds.
  const control = await api2.create(rule('Control', { suppressionWindowMinutes: 30 }));
  const pump2 = pumpErrors(after);
  try {
    await waitUntil(
      () => alertsOf(after, control.id),
      (a) => a.length === 1,
      'the control rule to fire after the restart',
    );
    await evaluationsPass(after, 3);
    t.equal((await alertsOf(after, control.id)).length, 1, 'control: one incident');
    const still = await alertsOf(after, firing.id);
    t.equal(still.length, 1, 'the FIRING rule did not fire a second incident');
    t.match(still[0], { id: incident?.id, state: 'FIRING' });
    t.equal(
      (await alertsOf(after, suppressed.id)).length,
      1,
      'the suppressed rule did not fire again after the restart',
    );
    t.same(
      (await alertsOf(after, capped.id)).map((a) => a.heldByBudget),
      [true, false],
      'the capped rule: its second incident held back by the budget, no third one',
    );
    t.equal(
      (await alertsOf(after, long.id)).length,
      1,
      'an alert older than the hour still suppresses a 2-hour window',
    );
    t.match((await api2.testStored(long.id)).message, /suppress/i);
    t.equal((await api2.get(suppressed.id)).triggerCount, 1);
    t.equal((await api2.get(capped.id)).triggerCount, 2, 'an incident held back still counts');
    t.match((await api2.testStored(suppressed.id)).message, /suppress/i);
    t.match((await api2.testStored(capped.id)).message, /maxAlertsPerHour 1/);
  } finally {
    await pump2.stop();
  }
  // The incident opened before the restart resolves normally, the same alert.
  await clearConditions(after);
  const [resolved] = await waitUntil(
    () => alertsOf(after, firing.id),
    (a) => a[0]?.state === 'RESOLVED',
    'the incident of before the restart to resolve',
  );
  t.match(resolved, {
    id: incident?.id,
    resolvedReason: 'condition cleared',
    valuesAtFire: { errorRate: 100 },
    valuesAtResolve: { errorRate: 0 },
  });
  await after.service.stop();
});
