// Throttling survives a restart (DESIGN 6): a real service fires, is stopped, and a new service on
// the same schema rebuilds suppression and the hourly cap from the stored alerts, so a held-back
// rule does not fire again right after the restart while a fresh rule with the same condition does.
import t from 'tap';
import { rulesApi } from '../support/rules.ts';
import { startTestService } from '../support/service.ts';
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

void t.test('suppression and maxAlertsPerHour are rebuilt from stored alerts', async (t) => {
  const before = await startTestService(t, env);
  const api = rulesApi(before);
  // Suppressed for 2 hours; its one alert (stored below, while no service runs) is 90 minutes old.
  const long = await api.create(rule('Long suppression', { suppressionWindowMinutes: 120 }));
  await api.action(long.id, 'disable');
  const suppressed = await api.create(
    rule('Suppressed', { suppressionWindowMinutes: 30, maxAlertsPerHour: 10 }),
  );
  const capped = await api.create(
    rule('Capped', { suppressionWindowMinutes: 0, maxAlertsPerHour: 3 }),
  );
  const metronome = await api.create(
    rule('Metronome', { suppressionWindowMinutes: 0, maxAlertsPerHour: 3600 }),
  );
  const pump = pumpErrors(before);
  try {
    await waitUntil(
      async () => [
        (await alertsOf(before, suppressed.id)).length,
        (await alertsOf(before, capped.id)).length,
      ],
      ([s, c]) => s === 1 && c === 3,
      'one alert of the suppressed rule, three of the capped one',
    );
    await evaluationsPass(before, metronome.id, 3);
    t.equal((await alertsOf(before, suppressed.id)).length, 1, 'suppressed: one alert');
    t.equal((await alertsOf(before, capped.id)).length, 3, 'capped: three alerts');
  } finally {
    await pump.stop();
  }
  await before.service.stop();
  const [fired] = await before.db.sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM alerts WHERE rule_id = ${long.id}`;
  t.equal(fired?.n, 0, 'the paused rule never fired');
  const ninetyMinutesAgo = new Date(Date.now() - 90 * 60_000);
  await before.db.sql`
    INSERT INTO alerts (rule_id, rule_name, rule_version, severity, triggered_at,
                        matched_conditions, current_values, condition_text, message)
    VALUES (${long.id}, 'Long suppression', 1, 'HIGH', ${ninetyMinutesAgo},
            '["errorRate 100 > 20"]', '{"errorRate": 100}', 'errorRate > 20 [1 min]', 'old')`;

  const after = await startTestService(t, env, { database: before.db });
  t.not(after.service.port, undefined);
  const api2 = rulesApi(after);
  await api2.action(long.id, 'enable');
  t.equal((await api2.get(suppressed.id)).triggerCount, 1, 'the counts are stored');
  t.equal((await api2.get(capped.id)).triggerCount, 3);

  // The same condition in a rule without history fires on the new service: the condition holds.
  const control = await api2.create(rule('Control', { suppressionWindowMinutes: 30 }));
  const pump2 = pumpErrors(after);
  try {
    await waitUntil(
      () => alertsOf(after, control.id),
      (a) => a.length === 1,
      'the control rule to fire after the restart',
    );
    await evaluationsPass(after, metronome.id, 3);
    t.equal((await alertsOf(after, control.id)).length, 1, 'control: suppressed after its alert');
    t.equal(
      (await alertsOf(after, suppressed.id)).length,
      1,
      'the suppressed rule did not fire again after the restart',
    );
    t.equal(
      (await alertsOf(after, capped.id)).length,
      3,
      'the capped rule did not fire a fourth time in the hour',
    );
    t.equal(
      (await alertsOf(after, long.id)).length,
      1,
      'an alert older than the hour still suppresses a 2-hour window',
    );
    t.match((await api2.testStored(long.id)).message, /suppress/i);
    t.equal((await api2.get(suppressed.id)).triggerCount, 1);
    t.equal((await api2.get(capped.id)).triggerCount, 3);
    t.match((await api2.testStored(suppressed.id)).message, /suppress/i);
    t.match((await api2.testStored(capped.id)).message, /maxAlertsPerHour 3/);
  } finally {
    await pump2.stop();
  }
  await after.service.stop();
});
