// Rule limits (issue 17): field bounds on create, update and rule test alike; ANOMALY / PATTERN
// refused; at most MAX_RULES rules, archived ones included, also under concurrent creates.
import t from 'tap';
import { expectError } from '../support/events.ts';
import { ruleBody, rulesApi } from '../support/rules.ts';
import { startTestService } from '../support/service.ts';

const MAX_RULES = 6;
// Several storage connections, so that concurrent creates really run in parallel transactions.
const svc = await startTestService(t, {
  MAX_RULES: String(MAX_RULES),
  STORAGE_WORKERS: '2',
  DB_CONNECTIONS_PER_WORKER: '4',
});
const api = rulesApi(svc);
const ruleCount = async (): Promise<number> => {
  const [row] = await svc.db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM rules`;
  return (row as { n: number }).n;
};

const TOO_LARGE: [string, Record<string, unknown>, string][] = [
  ['name', { name: '😀'.repeat(256) }, 'name must be a string of 1 to 255 characters'],
  [
    'description',
    { description: 'd'.repeat(2001) },
    'description must be a string of at most 2000 characters, or null',
  ],
  [
    'maxAlertsPerHour',
    { maxAlertsPerHour: 3601 },
    'maxAlertsPerHour must be an integer from 1 to 3600',
  ],
  [
    'suppressionWindowMinutes',
    { suppressionWindowMinutes: 10081 },
    'suppressionWindowMinutes must be an integer from 0 to 10080 (0 = no suppression)',
  ],
];

void t.test(
  'each bound: the largest value passes, one more is a 400 naming the field',
  async (t) => {
    const largest = await api.create(
      ruleBody('😀'.repeat(255), {
        description: 'd'.repeat(2000),
        maxAlertsPerHour: 3600,
        suppressionWindowMinutes: 10080,
      }),
    );
    t.match(largest, { maxAlertsPerHour: 3600, suppressionWindowMinutes: 10080 });
    for (const [field, change, message] of TOO_LARGE) {
      const body = ruleBody(`too large ${field}`, change);
      const created = await api.send('POST', '', body);
      t.same((await expectError(t, created, 400, 'VALIDATION_FAILED', [field])).errors, {
        [field]: message,
      });
      const updated = await api.send('PUT', `/${largest.id}`, change);
      t.same((await expectError(t, updated, 400, 'VALIDATION_FAILED', [field])).errors, {
        [field]: message,
      });
      const tested = await api.send('POST', '/test', body);
      t.same((await expectError(t, tested, 400, 'VALIDATION_FAILED', [field])).errors, {
        [field]: message,
      });
    }
    t.same(await api.get(largest.id), largest, 'the refused updates changed nothing');
    await api.send('DELETE', `/${largest.id}`);
  },
);

void t.test('MAX_RULES holds under concurrent creates; archived rules count', async (t) => {
  t.equal(await ruleCount(), 0);
  const answers = await Promise.all(
    Array.from({ length: 4 * MAX_RULES }, (_, i) =>
      api.send('POST', '', ruleBody(`concurrent ${i}`)),
    ),
  );
  const created = answers.filter((res) => res.status === 201);
  t.equal(created.length, MAX_RULES, `exactly ${MAX_RULES} created`);
  for (const res of answers.filter((r) => r.status !== 201)) {
    const error = await expectError(t, res, 422, 'RULE_LIMIT');
    t.match(error.message, new RegExp(`At most ${MAX_RULES} rules`));
  }
  for (const res of created) await res.arrayBuffer();
  t.equal(await ruleCount(), MAX_RULES, 'no more stored');

  const [first] = await api.list();
  if (first === undefined) throw new Error('no rule listed');
  await api.action(first.id, 'archive');
  await expectError(t, await api.send('POST', '', ruleBody('past the limit')), 422, 'RULE_LIMIT');
  t.equal((await api.send('DELETE', `/${first.id}`)).status, 204);
  t.equal((await api.create(ruleBody('in the freed place'))).name, 'in the freed place');
  t.equal(await ruleCount(), MAX_RULES);
});
