// Alert SQL against PostgreSQL (DESIGN 6): an alert and its rule's count in one statement, even
// when alerts of one rule are stored out of order; the history that rebuilds throttling; filters
// on extreme instants.
import t from 'tap';
import {
  activeRulesForEvaluation,
  listAlerts,
  recordAlert,
} from '../../src/db/alerts-repository.ts';
import { createRule, getRule } from '../../src/db/rules-repository.ts';
import type { FiredAlert } from '../../src/domain/rules/alert.ts';
import type { RuleRecord } from '../../src/domain/rules/rule.ts';
import { createTestDatabase } from '../support/database.ts';

const db = await createTestDatabase(t);
const { sql } = db;

const MINUTE = 60_000;
const NOW = Date.now();

async function newRule(name: string, suppressionWindowMinutes = 0): Promise<RuleRecord> {
  const created = await createRule(
    sql,
    {
      name,
      description: null,
      ruleType: 'THRESHOLD',
      ruleConfig: {
        metric: 'errorRate',
        operator: 'GREATER_THAN',
        threshold: 20,
        windowMinutes: 1,
      },
      severity: 'HIGH',
      priority: 0,
      notificationChannels: [],
      notificationConfig: null,
      suppressionWindowMinutes,
      maxAlertsPerHour: 10,
      createdBy: null,
    },
    1000,
  );
  if (typeof created === 'string') throw new Error(created);
  return created;
}

const fired = (rule: RuleRecord, triggeredAt: number): FiredAlert => ({
  ruleId: rule.id,
  ruleName: rule.name,
  ruleVersion: rule.version,
  severity: rule.severity,
  triggeredAt,
  matchedConditions: ['errorRate 50 > 20'],
  currentValues: { errorRate: 50 },
  condition: 'errorRate > 20 [1 min]',
  message: 'm',
});

const lastTriggered = async (id: number): Promise<number | null> => {
  const [row] = await sql<{ ms: number | null }[]>`
    SELECT (extract(epoch FROM last_triggered_at) * 1000)::float8 AS ms FROM rules WHERE id = ${id}`;
  return row?.ms ?? null;
};

void t.test('recordAlert: the alert, the count and the time, in one statement', async (t) => {
  const rule = await newRule('counted');
  const stored = await recordAlert(sql, fired(rule, NOW - 2 * MINUTE));
  t.match(stored, {
    ruleId: rule.id,
    ruleName: 'counted',
    triggeredAt: new Date(NOW - 2 * MINUTE).toISOString(),
    condition: 'errorRate > 20 [1 min]',
    deliveries: [],
  });
  t.equal((await getRule(sql, rule.id))?.triggerCount, 1);
  t.equal(await lastTriggered(rule.id), NOW - 2 * MINUTE);

  // Stored out of order (two alerts in flight at once): the later time stays.
  await recordAlert(sql, fired(rule, NOW));
  await recordAlert(sql, fired(rule, NOW - MINUTE));
  t.equal((await getRule(sql, rule.id))?.triggerCount, 3);
  t.equal(await lastTriggered(rule.id), NOW, 'lastTriggeredAt never goes back');

  // Concurrently, many at once: every one counted.
  await Promise.all(
    Array.from({ length: 20 }, (_, i) => recordAlert(sql, fired(rule, NOW - 10 * MINUTE + i))),
  );
  t.equal((await getRule(sql, rule.id))?.triggerCount, 23);
  t.equal(await lastTriggered(rule.id), NOW);
});

void t.test('a deleted rule: its alert is still stored', async (t) => {
  const rule = await newRule('gone');
  await sql`DELETE FROM rules WHERE id = ${rule.id}`;
  const stored = await recordAlert(sql, fired(rule, NOW));
  t.equal(stored.ruleName, 'gone');
  const page = await listAlerts(sql, { ruleId: rule.id, severity: null, since: null }, 0, 10);
  t.equal(page.total, 1);
});

void t.test('activeRulesForEvaluation: the last hour of alerts and the latest one', async (t) => {
  const rule = await newRule('history', 180);
  for (const minutesAgo of [150, 120, 59, 10]) {
    await recordAlert(sql, fired(rule, NOW - minutesAgo * MINUTE));
  }
  const quiet = await newRule('quiet');
  const old = await newRule('old', 240);
  await recordAlert(sql, fired(old, NOW - 200 * MINUTE));
  await recordAlert(sql, fired(old, NOW - 230 * MINUTE));
  const paused = await newRule('paused');
  await sql`UPDATE rules SET status = 'PAUSED' WHERE id = ${paused.id}`;

  const active = await activeRulesForEvaluation(sql, NOW);
  const byId = new Map(active.map((r) => [r.id, r]));
  t.notOk(byId.has(paused.id), 'only ACTIVE rules');
  t.same(
    [...(byId.get(rule.id)?.recentAlerts ?? [])].sort((a, b) => a - b),
    [NOW - 59 * MINUTE, NOW - 10 * MINUTE],
    'the last hour (which holds the latest); not the older ones',
  );
  t.same(byId.get(quiet.id)?.recentAlerts, [], 'never fired: none');
  t.same(byId.get(old.id)?.recentAlerts, [NOW - 200 * MINUTE], 'only the latest, however old');
  t.match(byId.get(rule.id), {
    name: 'history',
    ruleType: 'THRESHOLD',
    suppressionWindowMinutes: 180,
    maxAlertsPerHour: 10,
  });
});

void t.test('listAlerts: since at the ends of the instants accepted', async (t) => {
  const all = (since: number) =>
    listAlerts(sql, { ruleId: null, severity: null, since }, 0, 100).then((p) => p.total);
  const total = (await listAlerts(sql, { ruleId: null, severity: null, since: null }, 0, 1)).total;
  t.ok(total > 0);
  t.equal(await all(-62167219200000), total, '0000-01-01T00:00:00Z');
  t.equal(await all(253402300799999), 0, '9999-12-31T23:59:59.999Z');
  t.equal(await all(NOW), 2, 'since is inclusive, to the millisecond');
  t.equal(await all(NOW + 1), 0);
});
