// The evaluator follows each rule change on its own (rule-sync: only the changed rule is read and
// sent to the metrics actor), and every answer waits until the actor holds the change: the rules
// it evaluates always equal the ACTIVE rules in the table, through creates (also many at once),
// updates, transitions and deletes; an update's new condition is the one evaluated.
import t from 'tap';
import { Type } from '@sinclair/typebox';
import { expectJson, rulesApi } from '../support/rules.ts';
import { startTestService } from '../support/service.ts';
import { alertsOf, evaluationsPass, waitUntil } from '../service/alerts-helpers.ts';
import { postJson } from '../service/helpers.ts';

const svc = await startTestService(t, { RULE_EVALUATION_MS: '200' });
const rules = rulesApi(svc);

const StatsSchema = Type.Object({ rules: Type.Integer({ minimum: 0 }) });
const evaluated = async (): Promise<number> =>
  (await expectJson(StatsSchema, await svc.request('/api/v1/rules/evaluation-stats'), 200)).rules;
const activeInTable = async (): Promise<number> => {
  const [row] = await svc.db.sql<{ n: number }[]>`
    SELECT count(*)::int4 AS n FROM rules WHERE status = 'ACTIVE'`;
  return row?.n ?? -1;
};

const quietRule = (name: string, threshold = 1e12) => ({
  name,
  ruleType: 'THRESHOLD',
  ruleConfig: { metric: 'totalEvents', operator: 'GREATER_THAN', threshold, windowMinutes: 5 },
  severity: 'LOW',
});

void t.test('every change is evaluated as soon as its answer arrives', async (t) => {
  const created = [];
  for (let i = 0; i < 5; i++) created.push(await rules.create(quietRule(`sync ${i}`)));
  t.equal(await evaluated(), 5, 'five creates: five rules');
  const [a, b, c, d, e] = created.map((r) => r.id) as [number, number, number, number, number];

  await rules.action(a, 'disable');
  t.equal(await evaluated(), 4, 'paused: dropped');
  await rules.action(b, 'archive');
  t.equal(await evaluated(), 3, 'archived: dropped');
  await rules.action(a, 'enable');
  t.equal(await evaluated(), 4, 'enabled again: back');
  await rules.action(c, 'enable');
  t.equal(await evaluated(), 4, 'enabling an ACTIVE rule adds no second copy');
  await rules.put(d, { description: 'still active' });
  t.equal(await evaluated(), 4, 'an update keeps one copy');
  t.equal((await svc.request(`/api/v1/rules/${e}`, { method: 'DELETE' })).status, 204);
  t.equal(await evaluated(), 3, 'deleted: dropped');
  await rules.action(b, 'disable');
  t.equal(await evaluated(), 3, 'archived to paused: still not evaluated');
  t.equal(await evaluated(), await activeInTable(), 'the actor holds what the table holds');
});

void t.test('many creates, updates and deletes at once end equal to the table', async (t) => {
  const before = await evaluated();
  const made = await Promise.all(
    Array.from({ length: 40 }, (_, i) => rules.create(quietRule(`bulk ${i}`))),
  );
  t.equal(await evaluated(), before + 40, 'forty concurrent creates: all evaluated');
  await Promise.all(
    made.map((rule, i) =>
      i % 3 === 0
        ? rules.action(rule.id, 'disable')
        : i % 3 === 1
          ? svc.request(`/api/v1/rules/${rule.id}`, { method: 'DELETE' })
          : rules.put(rule.id, { priority: i }),
    ),
  );
  t.equal(await evaluated(), await activeInTable(), 'after concurrent changes: equal to the table');
  t.equal(await evaluated(), before + made.filter((_, i) => i % 3 === 2).length);
});

void t.test('an update changes the condition the evaluator checks', async (t) => {
  const rule = await rules.create(quietRule('becomes loud'));
  await postJson(svc, '/api/v1/events', { eventType: 'sync.check', source: 'test' }, 202);
  // Quiet for a few evaluations: the threshold cannot be passed.
  await evaluationsPass(svc, 3);
  t.equal((await alertsOf(svc, rule.id)).length, 0, 'no alert while the threshold is 1e12');
  await rules.put(rule.id, {
    ruleConfig: { metric: 'totalEvents', operator: 'GREATER_THAN', threshold: 0, windowMinutes: 5 },
  });
  const alerts = await waitUntil(
    () => alertsOf(svc, rule.id),
    (list) => list.length > 0,
    'an alert under the updated condition',
  );
  t.equal(alerts[0]?.ruleVersion, 2, 'fired by version 2 of the rule');
});
