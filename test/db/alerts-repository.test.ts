// Alert SQL against PostgreSQL (DESIGN 6, issue 18): an alert and its rule's count in one
// transaction, even when alerts of one rule are stored out of order; many rules' transitions in
// one transaction, each rule's in order; delivery results of many alerts at once; the history
// that rebuilds throttling; resolving an incident with its reason; acknowledging once; the open
// incident that rebuilds the lifecycle; filters on extreme instants.
import t from 'tap';
import {
  acknowledgeAlert,
  activeRulesForEvaluation,
  getAlert,
  inactiveRulesFiring,
  listAlerts,
  recordDeliveries,
  recordTransitions,
} from '../../src/db/alerts-repository.ts';
import type { Sql } from '../../src/db/connect.ts';
import { getRule } from '../../src/db/rules-repository.ts';
import type {
  AlertFilter,
  AlertRecord,
  AlertResolution,
  FiredAlert,
} from '../../src/domain/rules/alerts/alert.ts';
import type { RuleFields, RuleRecord } from '../../src/domain/rules/rule.ts';
import { firedAlert, storedRule } from '../support/alert-rows.ts';
import { createTestDatabase } from '../support/database.ts';
import { rowWriters } from '../support/row-writers.ts';

const db = await createTestDatabase(t);
const { sql } = db;

const MINUTE = 60_000;
const NOW = Date.now();

const newRule = (
  name: string,
  suppressionWindowMinutes = 0,
  over: Partial<RuleFields> = {},
): Promise<RuleRecord> => storedRule(sql, name, { suppressionWindowMinutes, ...over });

const fired = (rule: RuleRecord, triggeredAt: number): FiredAlert => firedAlert(rule, triggeredAt);

/** One firing stored alone: its incident. */
async function recordAlert(sql: Sql, alert: FiredAlert): Promise<AlertRecord> {
  const {
    stored: [stored],
  } = await recordTransitions(sql, [{ kind: 'fired', alert }]);
  if (stored?.kind !== 'fired') throw new Error('a firing stores an incident');
  return stored.alert;
}

/** One resolution stored alone: the incidents it closed. */
async function resolveAlert(
  sql: Sql,
  resolution: AlertResolution,
): Promise<readonly AlertRecord[]> {
  const {
    stored: [stored],
  } = await recordTransitions(sql, [{ kind: 'resolved', resolution }]);
  if (stored?.kind !== 'resolved') throw new Error('a resolution answers what it closed');
  return stored.alerts.map((s) => s.alert);
}

const cleared = (rule: RuleRecord, resolvedAt: number): AlertResolution => ({
  ruleId: rule.id,
  resolvedAt,
  cause: 'condition-cleared',
  valuesAtResolve: { errorRate: 1 },
  resolveExplanation: null,
});

const filter = (over: Partial<AlertFilter>): AlertFilter => ({
  ruleId: null,
  severity: null,
  state: null,
  since: null,
  until: null,
  ...over,
});

const lastTriggered = async (id: number): Promise<number | null> => {
  const [row] = await sql<{ ms: number | null }[]>`
    SELECT (extract(epoch FROM last_triggered_at) * 1000)::float8 AS ms FROM rules WHERE id = ${id}`;
  return row?.ms ?? null;
};

void t.test('a firing: the alert, the count and the time, in one transaction', async (t) => {
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
  const page = await listAlerts(sql, filter({ ruleId: rule.id }), 0, 10);
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
  t.equal(byId.get(rule.id)?.lastAlertAt, NOW - 10 * MINUTE);
  t.same(byId.get(quiet.id)?.recentAlerts, [], 'never fired: none');
  t.equal(byId.get(quiet.id)?.lastAlertAt, null);
  t.same(byId.get(old.id)?.recentAlerts, [], 'none in the last hour');
  t.equal(byId.get(old.id)?.lastAlertAt, NOW - 200 * MINUTE, 'the latest, however old');
  t.equal(byId.get(rule.id)?.heldSince, null, 'nothing held back');
  t.match(byId.get(rule.id), {
    name: 'history',
    ruleType: 'THRESHOLD',
    suppressionWindowMinutes: 180,
    maxAlertsPerHour: 10,
  });
});

void t.test('listAlerts: since at the ends of the instants accepted', async (t) => {
  const all = (since: number) => listAlerts(sql, filter({ since }), 0, 100).then((p) => p.total);
  const total = (await listAlerts(sql, filter({}), 0, 1)).total;
  t.ok(total > 0);
  t.equal(await all(-62167219200000), total, '0000-01-01T00:00:00Z');
  t.equal(await all(253402300799999), 0, '9999-12-31T23:59:59.999Z');
  t.equal(await all(NOW), 2, 'since is inclusive, to the millisecond');
  t.equal(await all(NOW + 1), 0);
  const until = (to: number) => listAlerts(sql, filter({ until: to }), 0, 100).then((p) => p.total);
  t.equal(await until(NOW + 1), total, 'to is exclusive');
  t.equal(await until(-62167219200000), 0);
});

void t.test('an incident: FIRING, then RESOLVED with the values at recovery', async (t) => {
  const rule = await newRule('incident');
  const open = await recordAlert(sql, fired(rule, NOW - MINUTE));
  t.match(open, { state: 'FIRING', firedAt: open.triggeredAt, resolvedAt: null });
  t.same(open.valuesAtFire, { errorRate: 50 });
  const [active] = await activeRulesForEvaluation(sql, NOW, [rule.id]);
  t.equal(active?.firingSince, NOW - MINUTE, 'the open incident rebuilds FIRING');
  t.equal((await listAlerts(sql, filter({ ruleId: rule.id, state: 'FIRING' }), 0, 10)).total, 1);

  const resolved = await resolveAlert(sql, {
    ruleId: rule.id,
    resolvedAt: NOW,
    cause: 'condition-cleared',
    valuesAtResolve: { errorRate: 2 },
    resolveExplanation: null,
  });
  t.equal(resolved.length, 1);
  t.match(resolved[0], {
    id: open.id,
    state: 'RESOLVED',
    resolvedAt: new Date(NOW).toISOString(),
    resolvedReason: 'condition cleared',
    valuesAtResolve: { errorRate: 2 },
    valuesAtFire: { errorRate: 50 },
  });
  t.equal((await activeRulesForEvaluation(sql, NOW, [rule.id]))[0]?.firingSince, null);
  const again = await resolveAlert(sql, {
    ruleId: rule.id,
    resolvedAt: NOW,
    cause: 'condition-cleared',
    valuesAtResolve: null,
    resolveExplanation: null,
  });
  t.same(again, [], 'nothing open: nothing resolved');
});

void t.test('a rule that left evaluation: the reason says why', async (t) => {
  const reasons: Record<string, string> = {};
  for (const [status, name] of [
    ['PAUSED', 'p'],
    ['ARCHIVED', 'a'],
    ['DELETED', 'd'],
  ] as const) {
    const rule = await newRule(`left ${name}`);
    await recordAlert(sql, fired(rule, NOW));
    if (status === 'DELETED') await sql`DELETE FROM rules WHERE id = ${rule.id}`;
    else await sql`UPDATE rules SET status = ${status} WHERE id = ${rule.id}`;
    const [alert] = await resolveAlert(sql, {
      ruleId: rule.id,
      resolvedAt: NOW,
      cause: 'rule-inactive',
      valuesAtResolve: null,
      resolveExplanation: null,
    });
    reasons[status] = alert?.resolvedReason ?? '';
  }
  t.same(reasons, { PAUSED: 'rule paused', ARCHIVED: 'rule archived', DELETED: 'rule deleted' });
});

void t.test('inactiveRulesFiring: open incidents of rules not ACTIVE', async (t) => {
  const active = await newRule('orphans active');
  const paused = await newRule('orphans paused');
  const gone = await newRule('orphans gone');
  for (const rule of [active, paused, gone]) await recordAlert(sql, fired(rule, NOW));
  await sql`UPDATE rules SET status = 'PAUSED' WHERE id = ${paused.id}`;
  await sql`DELETE FROM rules WHERE id = ${gone.id}`;
  const ids = await inactiveRulesFiring(sql);
  t.ok(ids.includes(paused.id) && ids.includes(gone.id), 'paused and deleted');
  t.notOk(ids.includes(active.id), 'not the ACTIVE one');
});

void t.test('acknowledge: the first one stays; unknown id null', async (t) => {
  const rule = await newRule('acked');
  const alert = await recordAlert(sql, fired(rule, NOW));
  const first = await acknowledgeAlert(sql, alert.id, { by: 'ann', comment: 'on it', at: NOW });
  t.match(first, {
    changed: true,
    alert: {
      acknowledgedBy: 'ann',
      acknowledgeComment: 'on it',
      acknowledgedAt: new Date(NOW).toISOString(),
    },
  });
  const second = await acknowledgeAlert(sql, alert.id, { by: 'bob', comment: null, at: NOW + 1 });
  t.match(second, { changed: false, alert: { acknowledgedBy: 'ann' } });
  t.equal(await acknowledgeAlert(sql, 999_999_999, { by: 'x', comment: null, at: NOW }), null);
  t.equal((await getAlert(sql, alert.id))?.acknowledgedBy, 'ann');
  t.equal(await getAlert(sql, 999_999_999), null);
});

void t.test('a batch: many rules in one transaction, each rule in the order given', async (t) => {
  const a = await newRule('batch a');
  const b = await newRule('batch b');
  const c = await newRule('batch c');
  const open = await recordAlert(sql, fired(c, NOW - 3 * MINUTE));
  const { stored } = await recordTransitions(sql, [
    { kind: 'fired', alert: fired(a, NOW - 2 * MINUTE) },
    { kind: 'resolved', resolution: cleared(c, NOW - 2 * MINUTE) },
    { kind: 'fired', alert: fired(b, NOW - 2 * MINUTE) },
    // a fired and resolved in the same batch: the resolution closes the incident fired before it.
    { kind: 'resolved', resolution: cleared(a, NOW - MINUTE) },
    // c resolved, then fired again: the new incident stays open.
    { kind: 'fired', alert: fired(c, NOW - MINUTE) },
    { kind: 'fired', alert: fired(a, NOW) },
  ]);
  t.same(
    stored.map((s) => s.kind),
    ['fired', 'resolved', 'fired', 'resolved', 'fired', 'fired'],
    'one answer per transition, in order',
  );
  const [aFired, cResolved, bFired, aResolved, cFired, aAgain] = stored;
  if (
    aFired?.kind !== 'fired' ||
    cResolved?.kind !== 'resolved' ||
    bFired?.kind !== 'fired' ||
    aResolved?.kind !== 'resolved' ||
    cFired?.kind !== 'fired' ||
    aAgain?.kind !== 'fired'
  )
    throw new Error('kinds checked above');
  t.match(aFired.alert, { ruleId: a.id, state: 'FIRING' }, 'the insert, as it was stored');
  t.same(
    aResolved.alerts.map(({ alert: x }) => [x.id, x.state, x.resolvedAt]),
    [[aFired.alert.id, 'RESOLVED', new Date(NOW - MINUTE).toISOString()]],
    'the resolution closed the incident fired before it in the batch',
  );
  t.same(
    cResolved.alerts.map((x) => x.alert.id),
    [open.id],
    'c: the incident open before the batch',
  );
  t.match(bFired.alert, { ruleId: b.id, state: 'FIRING' });
  t.match(cFired.alert, { ruleId: c.id, state: 'FIRING' }, 'fired after its resolution: open');
  t.match(aAgain.alert, { ruleId: a.id, state: 'FIRING' }, 'fired again after its resolution');
  const openNow = await listAlerts(sql, filter({ state: 'FIRING' }), 0, 100);
  t.same(
    openNow.rows
      .filter((x) => [a.id, b.id, c.id].includes(x.ruleId))
      .map((x) => x.id)
      .sort((x, y) => x - y),
    [bFired.alert.id, cFired.alert.id, aAgain.alert.id].sort((x, y) => x - y),
    'what is open after the batch',
  );

  // Counts: the firings of the batch, with the latest time each.
  t.equal((await getRule(sql, a.id))?.triggerCount, 2);
  t.equal((await getRule(sql, b.id))?.triggerCount, 1);
  t.equal((await getRule(sql, c.id))?.triggerCount, 2, 'one before the batch, one in it');
  t.equal(await lastTriggered(a.id), NOW);
  t.equal(await lastTriggered(c.id), NOW - MINUTE);

  const written = [aFired, bFired, cFired, aAgain].map((s) => s.alert.id);
  const alertTx = await rowWriters(sql, 'alerts', written);
  t.equal(alertTx.size, 1, 'the incidents were written by one transaction');
  t.same(
    await rowWriters(sql, 'rules', [a.id, b.id, c.id]),
    alertTx,
    'and the counts by the same one',
  );
  t.same(
    await recordTransitions(sql, []),
    { stored: [], outboxed: [] },
    'nothing to store: nothing done',
  );
});

void t.test('recordDeliveries: the results of many alerts, one statement', async (t) => {
  const rule = await newRule('delivered');
  const first = await recordAlert(sql, fired(rule, NOW - MINUTE));
  const second = await recordAlert(sql, fired(rule, NOW));
  const at = new Date(NOW).toISOString();
  await recordDeliveries(sql, [
    {
      transition: 'FIRING',
      id: first.id,
      deliveries: [{ channel: 'webhook', ok: true, attempts: 1, status: 200, at }],
    },
    {
      transition: 'FIRING',
      id: second.id,
      deliveries: [{ channel: 'slack', ok: false, attempts: 0, error: 'no contact point', at }],
    },
  ]);
  t.same((await getAlert(sql, first.id))?.deliveries, [
    { channel: 'webhook', ok: true, attempts: 1, status: 200, at },
  ]);
  t.same((await getAlert(sql, second.id))?.deliveries, [
    { channel: 'slack', ok: false, attempts: 0, error: 'no contact point', at },
  ]);
  t.equal((await rowWriters(sql, 'alerts', [first.id, second.id])).size, 1, 'one transaction');
  await recordDeliveries(sql, []);
});

void t.test('activeRulesForEvaluation: the notification settings come along', async (t) => {
  const created = await newRule('notifying', 0, {
    notificationChannels: ['webhook:ops', 'slack'],
    notificationConfig: { slack: { channel: '#alerts' } },
  });
  const [active] = await activeRulesForEvaluation(sql, NOW, [created.id]);
  t.same(active?.notificationChannels, ['webhook:ops', 'slack']);
  t.same(active?.notificationConfig, { slack: { channel: '#alerts' } });
});

void t.test(
  'held back by the budget: not in the budget, then one digest carries them',
  async (t) => {
    const rule = await newRule('budgeted', 0, { maxAlertsPerHour: 1 });
    const notified = await recordAlert(sql, fired(rule, NOW - 30 * MINUTE));
    const held = [];
    for (const minutesAgo of [20, 15, 10]) {
      held.push(
        await recordAlert(sql, { ...fired(rule, NOW - minutesAgo * MINUTE), heldByBudget: true }),
      );
    }
    t.same(
      held.map((a) => a.heldByBudget),
      [true, true, true],
      'stored as held back',
    );
    t.equal(notified.heldByBudget, false);
    const [active] = await activeRulesForEvaluation(sql, NOW, [rule.id]);
    t.same(active?.recentAlerts, [NOW - 30 * MINUTE], 'only the notified one uses the budget');
    t.equal(active?.lastAlertAt, NOW - 10 * MINUTE, 'suppression counts every incident');
    t.equal(active?.heldSince, NOW - 20 * MINUTE, 'the oldest held back, for the digest');

    const due = {
      ruleId: rule.id,
      ruleName: rule.name,
      ruleVersion: rule.version,
      severity: rule.severity,
      maxAlertsPerHour: 1,
      notificationChannels: ['webhook'],
      notificationConfig: null,
      since: NOW - 20 * MINUTE,
      until: NOW - 12 * MINUTE,
    };
    const {
      stored: [first],
    } = await recordTransitions(sql, [{ kind: 'digest', digest: due }]);
    if (first?.kind !== 'digest' || first.digest === null) throw new Error('a digest was written');
    t.match(first.digest, {
      ruleId: rule.id,
      heldBack: 2,
      maxAlertsPerHour: 1,
      from: new Date(NOW - 20 * MINUTE).toISOString(),
      until: new Date(NOW - 12 * MINUTE).toISOString(),
    });
    t.same(
      first.digest.alerts.map((a) => [a.alertId, a.firedAt, a.state]),
      held.slice(0, 2).map((a) => [a.id, a.firedAt, 'FIRING']),
      'the held ones fired until then, oldest first',
    );
    t.same(first.notify, { notificationChannels: ['webhook'], notificationConfig: null });
    const {
      stored: [again],
    } = await recordTransitions(sql, [{ kind: 'digest', digest: due }]);
    t.same(again, { kind: 'digest', digest: null, notify: first.notify }, 'carried once only');
    const [after] = await activeRulesForEvaluation(sql, NOW, [rule.id]);
    t.equal(after?.heldSince, NOW - 10 * MINUTE, 'the one after the digest is still held');

    await recordDeliveries(sql, [
      {
        transition: 'DIGEST',
        id: first.digest.id,
        deliveries: [{ channel: 'webhook', ok: true, attempts: 1, at: 'x' }],
      },
    ]);
    const [row] = await sql<{ deliveries: unknown }[]>`
    SELECT deliveries FROM alert_digests WHERE id = ${first.digest.id}`;
    t.same(row?.deliveries, [{ channel: 'webhook', ok: true, attempts: 1, at: 'x' }]);
  },
);

void t.test('an incident keeps the channels it fired with for its RESOLVED', async (t) => {
  const rule = await newRule('keeps channels');
  const {
    stored: [stored],
  } = await recordTransitions(sql, [
    {
      kind: 'fired',
      alert: { ...fired(rule, NOW - MINUTE), notificationChannels: ['slack:ops'] },
    },
  ]);
  if (stored?.kind !== 'fired') throw new Error('fired');
  t.same(stored.notify, { notificationChannels: ['slack:ops'], notificationConfig: null });
  const {
    stored: [resolved],
  } = await recordTransitions(sql, [{ kind: 'resolved', resolution: cleared(rule, NOW) }]);
  if (resolved?.kind !== 'resolved') throw new Error('resolved');
  t.same(
    resolved.alerts.map((a) => a.notify.notificationChannels),
    [['slack:ops']],
    'the channels of the firing, whatever the rule says now',
  );
  const at = new Date(NOW).toISOString();
  await recordDeliveries(sql, [
    {
      transition: 'RESOLVED',
      id: stored.alert.id,
      deliveries: [{ channel: 'slack:ops', ok: true, attempts: 1, at }],
    },
  ]);
  const alert = await getAlert(sql, stored.alert.id);
  t.same(alert?.deliveries, [], 'the FIRING results untouched');
  t.same(alert?.resolveDeliveries, [{ channel: 'slack:ops', ok: true, attempts: 1, at }]);
});
