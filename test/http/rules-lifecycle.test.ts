// Rule lifecycle (spec 3; DESIGN 6): enable / disable / archive from every status to every status,
// idempotent; delete from every status; statistics after creates, transitions and deletes.
import t from 'tap';
import { expectError } from '../support/events.ts';
import {
  RULE_STATUSES,
  ruleBody,
  rulesApi,
  storedRow,
  storedTimes,
  without,
  type Statistics,
} from '../support/rules.ts';
import { storeLegacyRule } from '../support/legacy-rules.ts';
import { startTestService } from '../support/service.ts';

const svc = await startTestService(t);
const api = rulesApi(svc);

type Status = (typeof RULE_STATUSES)[number];
type Action = 'enable' | 'disable' | 'archive';
const ACTIONS: Record<Action, Status> = {
  enable: 'ACTIVE',
  disable: 'PAUSED',
  archive: 'ARCHIVED',
};
const ACTION_OF: Record<Status, Action> = {
  ACTIVE: 'enable',
  PAUSED: 'disable',
  ARCHIVED: 'archive',
};

let seq = 0;
const uniqueName = (prefix: string): string => `${prefix} ${++seq}`;
const OLD = '2020-01-02T03:04:05.678';

/** A new rule in `status`, with updated_at set far in the past. */
async function ruleIn(status: Status): Promise<number> {
  const rule = await api.create(ruleBody(uniqueName(`from ${status}`)));
  if (status !== 'ACTIVE') await api.action(rule.id, ACTION_OF[status]);
  await svc.db.sql`UPDATE rules SET updated_at = ${OLD + 'Z'}::timestamptz WHERE id = ${rule.id}`;
  return rule.id;
}

const storedStatus = async (id: number): Promise<string | undefined> => {
  const [row] = await svc.db.sql<{ status: string }[]>`SELECT status FROM rules WHERE id = ${id}`;
  return row?.status;
};

void t.test('every transition from every status answers 200 with the rule', async (t) => {
  for (const from of RULE_STATUSES) {
    for (const [action, to] of Object.entries(ACTIONS) as [Action, Status][]) {
      const id = await ruleIn(from);
      const before = await api.get(id);
      t.equal(before.status, from);
      const rowBefore = await storedRow(svc.db, id);
      const after = await api.action(id, action);
      const label = `${from} --${action}--> ${to}`;
      t.equal(after.status, to, label);
      t.equal(await storedStatus(id), to, `${label}: stored`);
      t.same(await api.get(id), after, `${label}: GET agrees`);
      t.equal(after.version, before.version, `${label}: version unchanged`);
      t.equal(after.generatedDrl, before.generatedDrl, `${label}: DRL unchanged`);
      t.equal(after.drlHash, before.drlHash, `${label}: hash unchanged`);
      if (from === to) {
        t.equal(after.updatedAt, OLD, `${label}: idempotent, updatedAt unchanged`);
        t.same(await storedRow(svc.db, id), rowBefore, `${label}: the row is unchanged`);
      } else {
        t.not(after.updatedAt, OLD, `${label}: updatedAt moves`);
        t.equal((await storedTimes(svc.db, id)).updatedAt, after.updatedAt, `${label}: stored`);
        t.same(
          without(after, 'status', 'updatedAt'),
          without(before, 'status', 'updatedAt'),
          `${label}: nothing else changes`,
        );
      }
    }
  }
});

void t.test('a transition repeated is idempotent', async (t) => {
  const id = await ruleIn('ACTIVE');
  for (const action of ['disable', 'archive', 'enable'] as const) {
    const first = await api.action(id, action);
    const row = await storedRow(svc.db, id);
    for (let i = 0; i < 3; i++) {
      t.same(await api.action(id, action), first, `${action} again answers the same rule`);
    }
    t.same(await storedRow(svc.db, id), row, `${action} again leaves the row as it was`);
  }
});

void t.test(
  'concurrent transitions of one rule end in one of the requested statuses',
  async (t) => {
    const id = await ruleIn('ACTIVE');
    const actions: Action[] = ['disable', 'archive', 'enable', 'disable', 'archive'];
    const answers = await Promise.all(actions.map((a) => api.send('POST', `/${id}/${a}`)));
    t.same(
      answers.map((r) => r.status),
      actions.map(() => 200),
    );
    await Promise.all(answers.map((r) => r.arrayBuffer()));
    t.ok(RULE_STATUSES.includes((await api.get(id)).status));
  },
);

void t.test('a body or Content-Type on a transition is ignored', async (t) => {
  const id = await ruleIn('ACTIVE');
  const res = await svc.request(`/api/v1/rules/${id}/disable`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: 'status=ACTIVE',
  });
  t.equal(res.status, 200);
  t.equal(((await res.json()) as { status: string }).status, 'PAUSED');
});

void t.test('delete works from every status', async (t) => {
  for (const status of RULE_STATUSES) {
    const id = await ruleIn(status);
    const res = await api.send('DELETE', `/${id}`);
    t.equal(res.status, 204, `${status}: 204`);
    t.equal(await res.text(), '');
    t.equal(await storedRow(svc.db, id), null, `${status}: the row is gone`);
    for (const action of Object.keys(ACTIONS)) {
      await expectError(t, await api.send('POST', `/${id}/${action}`), 404, 'NOT_FOUND');
    }
  }
});

const emptyStatistics = (): Statistics => ({
  totalRules: 0,
  activeRules: 0,
  pausedRules: 0,
  archivedRules: 0,
  byType: { THRESHOLD: 0, RATE_CHANGE: 0, ANOMALY: 0, PATTERN: 0 },
});

void t.test('statistics follow creates, transitions and deletes', async (t) => {
  await svc.db.sql`DELETE FROM rules`;
  t.same(await api.statistics(), emptyStatistics(), 'no rules: every count is 0');

  const expected = emptyStatistics();
  const ids: Record<string, number[]> = {};
  const configs = {
    THRESHOLD: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 50 },
    RATE_CHANGE: { metric: 'totalErrors', operator: 'GREATER_THAN', threshold: 100 },
  };
  const counts = { THRESHOLD: 3, RATE_CHANGE: 2 };
  for (const ruleType of ['THRESHOLD', 'RATE_CHANGE'] as const) {
    ids[ruleType] = [];
    for (let i = 0; i < counts[ruleType]; i++) {
      const rule = await api.create(
        ruleBody(uniqueName(ruleType), { ruleType, ruleConfig: configs[ruleType] }),
      );
      ids[ruleType].push(rule.id);
    }
  }
  // ANOMALY and PATTERN can no longer be created; rules stored before are still counted.
  ids.ANOMALY = [
    await storeLegacyRule(svc.db, uniqueName('ANOMALY'), 'ANOMALY', { sensitivity: 2 }),
  ];
  ids.PATTERN = [
    await storeLegacyRule(svc.db, uniqueName('PATTERN'), 'PATTERN', { sequence: ['a', 'b'] }),
  ];
  expected.totalRules = 7;
  expected.activeRules = 7;
  expected.byType = { THRESHOLD: 3, RATE_CHANGE: 2, ANOMALY: 1, PATTERN: 1 };
  t.same(await api.statistics(), expected, 'after creates');

  const [t1, t2, t3] = ids.THRESHOLD as [number, number, number];
  const [r1] = ids.RATE_CHANGE as [number];
  await api.action(t1, 'disable');
  await api.action(t2, 'archive');
  await api.action(r1, 'disable');
  await api.action(r1, 'disable');
  expected.activeRules = 4;
  expected.pausedRules = 2;
  expected.archivedRules = 1;
  t.same(await api.statistics(), expected, 'after transitions (a repeated one counts once)');

  await api.action(t1, 'enable');
  expected.activeRules = 5;
  expected.pausedRules = 1;
  t.same(await api.statistics(), expected, 'after enabling a paused rule');

  t.equal((await api.send('DELETE', `/${t2}`)).status, 204);
  t.equal((await api.send('DELETE', `/${t3}`)).status, 204);
  t.equal((await api.send('DELETE', `/${ids.PATTERN?.[0]}`)).status, 204);
  expected.totalRules = 4;
  expected.activeRules = 3;
  expected.archivedRules = 0;
  expected.byType = { THRESHOLD: 1, RATE_CHANGE: 2, ANOMALY: 1, PATTERN: 0 };
  t.same(await api.statistics(), expected, 'after deletes');

  const put = await api.put(t1, {
    ruleType: 'RATE_CHANGE',
    ruleConfig: configs.RATE_CHANGE,
  });
  t.equal(put.ruleType, 'RATE_CHANGE');
  expected.byType = { THRESHOLD: 0, RATE_CHANGE: 3, ANOMALY: 1, PATTERN: 0 };
  t.same(await api.statistics(), expected, 'after a change of type');

  const list = await api.list();
  t.equal(list.length, expected.totalRules, 'totalRules is the length of the list');
  t.equal(list.filter((r) => r.status === 'ACTIVE').length, expected.activeRules);
});
