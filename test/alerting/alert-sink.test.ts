// The alert sink on the real service (issue 17, issue 18 section 3): the transitions of one
// evaluation are stored by one storage operation (one transaction writes every incident and every
// rule's trigger count), each incident's deliveries go to the channels its fired alert carries,
// and the delivery results of a storm are written together, not one write per alert.
import t from 'tap';
import { rulesApi, type Rule } from '../support/rules.ts';
import { rowWriters } from '../support/row-writers.ts';
import { startTestService } from '../support/service.ts';
import { alertsOf, waitUntil } from '../service/alerts-helpers.ts';

const svc = await startTestService(t, { RULE_EVALUATION_MS: '200' });
const { sql } = svc.db;

const SILENT = 15;
const NOTIFYING = 15;

void t.test('rules that fire in one evaluation: one transaction, results together', async (t) => {
  const rules = rulesApi(svc);
  const create = (name: string, notificationChannels: string[]) =>
    rules.create({
      name,
      ruleType: 'THRESHOLD',
      severity: 'LOW',
      // Five minutes: the condition stays true (nothing resolves) while the test reads.
      ruleConfig: {
        metric: 'eventsByType[sink.batch]',
        operator: 'GREATER_THAN',
        threshold: 0,
        windowMinutes: 5,
      },
      notificationChannels,
    });
  const silent: Rule[] = [];
  const notifying: Rule[] = [];
  for (let i = 0; i < SILENT; i++) silent.push(await create(`silent ${i}`, []));
  // No contact point of that name: each delivery fails at once, all in the same turn.
  for (let i = 0; i < NOTIFYING; i++) notifying.push(await create(`notifying ${i}`, ['webhook:x']));
  const ruleIds = [...silent, ...notifying].map((r) => r.id);
  const isSilent = (ruleId: number): boolean => silent.some((r) => r.id === ruleId);

  // One event makes every condition true at the same evaluation.
  const res = await svc.request('/api/v1/events', {
    json: { eventType: 'sink.batch', source: 'sink-test' },
  });
  t.equal(res.status, 202);
  await res.arrayBuffer();

  const alerts = await waitUntil(
    () => alertsOf(svc),
    (all) =>
      all.length === SILENT + NOTIFYING &&
      all.every((a) => isSilent(a.ruleId) || a.deliveries.length > 0),
    'every rule to fire and every delivery to be stored',
  );
  t.same(
    alerts.map((a) => a.ruleId).sort((a, b) => a - b),
    ruleIds,
    'one incident per rule',
  );
  const transaction = await rowWriters(sql, 'rules', ruleIds);
  t.equal(transaction.size, 1, 'every trigger count was written by one transaction');
  const silentAlerts = alerts.filter((a) => isSilent(a.ruleId));
  const incidents = silentAlerts.map((a) => a.id);
  t.same(
    await rowWriters(sql, 'alerts', incidents),
    transaction,
    'the same transaction stored the incidents',
  );

  const notified = alerts.filter((a) => !isSilent(a.ruleId));
  for (const alert of notified) {
    t.same(
      alert.deliveries.map(({ at: _, ...rest }) => rest),
      [
        {
          channel: 'webhook:x',
          ok: false,
          attempts: 0,
          error: 'no contact point for webhook named x',
        },
      ],
      `alert ${alert.id}: the channel its rule had when it fired`,
    );
  }
  const resultWrites = await rowWriters(
    sql,
    'alerts',
    notified.map((a) => a.id),
  );
  t.equal(resultWrites.size, 1, 'the delivery results were written by one statement');
  t.notSame(resultWrites, transaction, 'after the incidents were stored');
  for (const rule of await Promise.all(ruleIds.map((id) => rules.get(id))))
    t.equal(rule.triggerCount, 1, `rule ${rule.id}: its trigger counted`);
});
