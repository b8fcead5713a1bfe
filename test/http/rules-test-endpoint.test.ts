// Rule testing over HTTP (spec 2.9, 4.3; DESIGN 6): the failure shape (200, success false), the
// success and WARNING shapes, a simulation against metrics of known events (would and would not
// trigger), and /test/{id}, which leaves the stored rule exactly as it was.
import t from 'tap';
import { contactPointsApi } from '../support/contact-points.ts';
import { expectError } from '../support/events.ts';
import { ruleBody, rulesApi, storedRow, type TestResult } from '../support/rules.ts';
import { storeLegacyRule } from '../support/legacy-rules.ts';
import { startTestService } from '../support/service.ts';

type Simulation = NonNullable<TestResult['simulationResult']>;
const withoutTree = ({ explanation: _, ...rest }: Simulation) => rest;
/** A simulation without its explanation tree (checked on its own below). */
const brief = (simulation: Simulation | null) =>
  simulation === null ? null : withoutTree(simulation);

const svc = await startTestService(t);

/** The assertions the helpers below make; tap's `t` has them. */
type Assert = Pick<typeof t, 'equal' | 'same' | 'match' | 'type'>;
const api = rulesApi(svc);

const leaf = (metric: string, operator: string, threshold: unknown, extra = {}) => ({
  metric,
  operator,
  threshold,
  ...extra,
});
const testBody = (ruleConfig: unknown, extra: Record<string, unknown> = {}) =>
  ruleBody('under test', { ruleConfig, ...extra });

/** Asserts spec 4.3 rule 1 exactly. */
function assertFailure(t: Assert, result: TestResult, messages: string[], label: string): void {
  t.same(
    result,
    {
      success: false,
      message: result.message,
      compilationStatus: 'ERROR',
      generatedDrl: null,
      validationErrors: messages,
      simulationResult: null,
      recommendations: result.recommendations,
    },
    `${label}: the failure shape`,
  );
  t.match(result.message, /\S/, `${label}: a message`);
}

/** Asserts spec 4.3 rule 2 (SUCCESS) or the DESIGN 6 WARNING shape. */
function assertPassed(
  t: Assert,
  result: TestResult,
  status: 'SUCCESS' | 'WARNING',
  label: string,
): void {
  t.equal(result.success, true, `${label}: success`);
  t.equal(result.compilationStatus, status, `${label}: ${status}`);
  t.same(result.validationErrors, [], `${label}: no validation errors`);
  t.type(result.generatedDrl, 'string', `${label}: a DRL`);
  t.match(result.generatedDrl ?? '', /@ruleId\(null\)|@ruleId\(\d+\)/);
}

void t.test('an invalid ruleConfig: 200, success false, ERROR, nulls, the messages', async (t) => {
  const cases: [string, unknown, string[]][] = [
    [
      'operator',
      leaf('errorRate', 'GREATER', 50),
      ["Invalid operator 'GREATER'. Did you mean 'GREATER_THAN'?"],
    ],
    [
      'metric',
      leaf('errRate', 'GREATER_THAN', 50),
      ["Metric 'errRate' not found. Did you mean 'errorRate'?"],
    ],
    [
      'threshold type',
      leaf('errorRate', 'GREATER_THAN', '50'),
      ['Invalid threshold type: expected a number, got string "50"'],
    ],
    [
      'missing property',
      { metric: 'errorRate', operator: 'GREATER_THAN' },
      ["Missing required property 'threshold'"],
    ],
    [
      'everything at once',
      { metric: 'errRate', operator: 'GREATER', threshold: '50', windowMinutes: 0 },
      [
        "Metric 'errRate' not found. Did you mean 'errorRate'?",
        "Invalid operator 'GREATER'. Did you mean 'GREATER_THAN'?",
        'Invalid threshold type: expected a number, got string "50"',
        'Invalid windowMinutes 0: must be an integer from 1 to 1440',
      ],
    ],
    [
      'not an object',
      'errorRate > 50',
      ['ruleConfig must be an object, got string "errorRate > 50"'],
    ],
    ['null', null, ['ruleConfig must be an object, got null']],
    [
      'an array',
      [leaf('errorRate', 'GREATER_THAN', 1)],
      ['ruleConfig must be an object, got array'],
    ],
  ];
  for (const [label, ruleConfig, messages] of cases) {
    const res = await api.send('POST', '/test', testBody(ruleConfig));
    t.equal(res.status, 200, `${label}: 200`);
    const result = await api.test(testBody(ruleConfig));
    assertFailure(t, result, messages, label);
  }
  const one = await api.test(testBody(leaf('errorRate', 'GREATER', 50)));
  t.equal(one.message, 'Rule validation failed with 1 error');
  const four = await api.test(
    testBody({ metric: 'errRate', operator: 'GREATER', threshold: '50', windowMinutes: 0 }),
  );
  t.equal(four.message, 'Rule validation failed with 4 errors');
  t.equal((await svc.db.sql`SELECT 1 FROM rules`).length, 0, 'nothing is stored by a test');
});

void t.test('a bad request body (not a bad config) is 400', async (t) => {
  const valid = testBody(leaf('errorRate', 'GREATER_THAN', 50));
  const cases: [Record<string, unknown>, string[]][] = [
    [{ ...valid, name: undefined }, ['name']],
    [{ ...valid, ruleType: 'BOGUS' }, ['ruleType']],
    [{ ...valid, severity: 'huge' }, ['severity']],
    [{ ...valid, ruleConfig: undefined }, ['ruleConfig']],
    [{ ...valid, surprise: 1 }, ['surprise']],
    [{ ...valid, status: 'ACTIVE' }, ['status']],
  ];
  for (const [body, fields] of cases) {
    for (const [k, v] of Object.entries(body)) if (v === undefined) delete body[k];
    await expectError(t, await api.send('POST', '/test', body), 400, 'VALIDATION_FAILED', fields);
  }
  await expectError(t, await api.send('POST', '/test', [valid]), 400, 'VALIDATION_FAILED', [
    'body',
  ]);
});

void t.test('a valid rule with no events: SUCCESS, simulated, would not trigger', async (t) => {
  await contactPointsApi(svc).create({
    name: 'ops-mail',
    type: 'email',
    isDefault: true,
    settings: { to: 'ops@example.com' },
  });
  const result = await api.test(
    testBody(leaf('errorRate', 'GREATER_THAN', 50), {
      notificationChannels: ['email'],
    }),
  );
  assertPassed(t, result, 'SUCCESS', 'errorRate > 50');
  t.same(brief(result.simulationResult), {
    wouldTrigger: false,
    matchedConditions: [],
    currentValues: { errorRate: 0 },
  });
  t.same(result.recommendations, [], 'nothing to recommend');
  t.match(result.generatedDrl ?? '', /\$m\.value\("errorRate", 5\) > 50\.0/);
  t.match(result.generatedDrl ?? '', /@ruleId\(null\)/, 'an unsaved rule has no id');
  t.match(result.message, /would not trigger/);
});

void t.test(
  'a channel without a contact point: a warning naming it, still a success',
  async (t) => {
    const result = await api.test(
      testBody(leaf('errorRate', 'GREATER_THAN', 50), {
        notificationChannels: ['slack', 'webhook:oncall'],
        notificationConfig: { slack: { channel: '#alerts' } },
      }),
    );
    t.equal(result.success, true);
    t.equal(result.compilationStatus, 'WARNING');
    t.match(result.message, /would not trigger/);
    t.match(result.message, /Warning: no contact point for slack: its deliveries will fail/);
    t.match(result.message, /Warning: no contact point for webhook named oncall:/);
    const stored = await api.create(
      ruleBody('no contact point yet', { notificationChannels: ['slack'] }),
    );
    t.match(await api.testStored(stored.id), {
      success: true,
      compilationStatus: 'WARNING',
      message: /no contact point for slack/,
    });
  },
);

void t.test('recommendations: no suppression window, no channel', async (t) => {
  const result = await api.test(
    testBody(leaf('errorRate', 'GREATER_THAN', 50), { suppressionWindowMinutes: 0 }),
  );
  assertPassed(t, result, 'SUCCESS', 'recommendations');
  t.equal(result.recommendations.length, 2);
  t.match(result.recommendations[0], /suppression window/);
  t.match(result.recommendations[1], /notification channel/);
});

void t.test('WARNING: valid but worth another look', async (t) => {
  const cases: [string, unknown, RegExp][] = [
    ['count against a fraction', leaf('totalEvents', 'GREATER_THAN', 2.5), /not an integer/],
    ['errorRate beyond 100', leaf('errorRate', 'GREATER_THAN', 150), /outside that range/],
    [
      'an indexed key no event used',
      leaf('eventsByType[never.seen]', 'GREATER_THAN', 0),
      /never\.seen/,
    ],
  ];
  for (const [label, ruleConfig, warning] of cases) {
    const result = await api.test(testBody(ruleConfig));
    assertPassed(t, result, 'WARNING', label);
    t.match(result.message, warning, `${label}: the warning is in the message`);
    t.ok(result.simulationResult !== null, `${label}: simulated`);
    t.equal(result.simulationResult?.wouldTrigger, false);
  }
});

interface Snapshot {
  summary: { totalEvents: number; errorRate: number };
}

/** Metrics are refreshed by the actor every 250 ms: wait until they show `total` events. */
async function metricsShow(total: number): Promise<Snapshot> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const snapshot = (await (await svc.request('/api/v1/metrics')).json()) as Snapshot;
    if (snapshot.summary.totalEvents === total) return snapshot;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the metrics never showed ${total} events`);
}

async function ingest(events: readonly Record<string, unknown>[]): Promise<void> {
  for (const event of events) {
    const res = await svc.request('/api/v1/events', { json: event });
    if (res.status !== 202) throw new Error(`ingest: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  }
}

void t.test('simulation against the metrics of known events', async (t) => {
  t.equal((await svc.request('/api/v1/metrics/reset', { method: 'POST' })).status, 200);
  // Seen before any event: a WARNING (unknown key) that must turn into SUCCESS below.
  const paidBefore = await api.test(testBody(leaf('eventsByType[checkout.paid]', 'EQUALS', 1)));
  assertPassed(t, paidBefore, 'WARNING', 'key not seen yet');

  await ingest([
    { eventType: 'checkout.failed', source: 'shop', severity: 'ERROR', userId: 'u1' },
    { eventType: 'checkout.failed', source: 'shop', severity: 'ERROR', userId: 'u2' },
    { eventType: 'payment.declined', source: 'payments', severity: 'ERROR', userId: 'u1' },
    { eventType: 'checkout.paid', source: 'shop', severity: 'INFO', userId: 'u3' },
  ]);
  const snapshot = await metricsShow(4);
  t.equal(snapshot.summary.errorRate, 75, 'the metrics see 3 errors in 4 events');

  const triggers = await api.test(testBody(leaf('errorRate', 'GREATER_THAN', 50)));
  assertPassed(t, triggers, 'SUCCESS', 'errorRate > 50');
  t.same(brief(triggers.simulationResult), {
    wouldTrigger: true,
    matchedConditions: ['errorRate 75 > 50'],
    currentValues: { errorRate: 75 },
  });
  t.match(triggers.message, /would trigger now/);

  const quiet = await api.test(testBody(leaf('errorRate', 'GREATER_THAN', 80)));
  assertPassed(t, quiet, 'SUCCESS', 'errorRate > 80');
  t.same(brief(quiet.simulationResult), {
    wouldTrigger: false,
    matchedConditions: [],
    currentValues: { errorRate: 75 },
  });

  const paid = await api.test(testBody(leaf('eventsByType[checkout.paid]', 'EQUALS', 1)));
  assertPassed(t, paid, 'SUCCESS', 'a key now seen');
  t.same(brief(paid.simulationResult), {
    wouldTrigger: true,
    matchedConditions: ['eventsByType[checkout.paid] 1 == 1'],
    currentValues: { 'eventsByType[checkout.paid]': 1 },
  });

  const tree = await api.test(
    testBody({
      logicalOperator: 'AND',
      windowMinutes: 15,
      conditions: [
        leaf('errorRate', 'GREATER_THAN', 50),
        leaf('eventsBySeverity[ERROR]', 'GREATER_THAN_OR_EQUAL', 3),
        leaf('eventsBySource[shop]', 'EQUALS', 3),
        { logicalOperator: 'NOT', conditions: [leaf('totalEvents', 'LESS_THAN', 0)] },
        {
          logicalOperator: 'OR',
          conditions: [leaf('uniqueUsers', 'GREATER_THAN', 5), leaf('totalErrors', 'EQUALS', 3)],
        },
      ],
    }),
  );
  assertPassed(t, tree, 'SUCCESS', 'a tree');
  t.same(brief(tree.simulationResult), {
    wouldTrigger: true,
    matchedConditions: [
      'errorRate 75 > 50',
      'eventsBySeverity[ERROR] 3 >= 3',
      'eventsBySource[shop] 3 == 3',
      'NOT (totalEvents 4 < 0)',
      'totalErrors 3 == 3',
    ],
    currentValues: {
      errorRate: 75,
      'eventsBySeverity[ERROR]': 3,
      'eventsBySource[shop]': 3,
      totalEvents: 4,
      uniqueUsers: 3,
      totalErrors: 3,
    },
  });

  t.match(
    tree.simulationResult?.explanation,
    {
      logicalOperator: 'AND',
      result: true,
      conditions: [
        { metric: 'errorRate', key: null, windowMinutes: 15, value: 75, result: true },
        { metric: 'eventsBySeverity[ERROR]', key: 'ERROR', operator: 'GREATER_THAN_OR_EQUAL' },
        { metric: 'eventsBySource[shop]', key: 'shop', threshold: 3, value: 3, result: true },
        { logicalOperator: 'NOT', result: true, conditions: [{ value: 4, result: false }] },
        {
          logicalOperator: 'OR',
          result: true,
          conditions: [{ metric: 'uniqueUsers', result: false }, { metric: 'totalErrors' }],
        },
      ],
    },
    'the condition tree as evaluated, as an alert stores it',
  );

  const notTree = await api.test(
    testBody({ logicalOperator: 'NOT', conditions: [leaf('totalErrors', 'GREATER_THAN', 2)] }),
  );
  t.same(brief(notTree.simulationResult), {
    wouldTrigger: false,
    matchedConditions: [],
    currentValues: { totalErrors: 3 },
  });

  const rate = await api.test(
    testBody(leaf('totalEvents', 'GREATER_THAN', 10), { ruleType: 'RATE_CHANGE' }),
  );
  assertPassed(t, rate, 'SUCCESS', 'RATE_CHANGE without a baseline');
  t.equal(rate.simulationResult?.wouldTrigger, false);
  t.same(rate.simulationResult?.matchedConditions, []);
  t.equal(rate.simulationResult?.currentValues.totalEvents, 4);
  t.match(rate.message, /no baseline/, 'the message says why it does not trigger');
});

void t.test('/test/{id}: the stored rule is tested and left byte for byte unchanged', async (t) => {
  const created = await api.create(
    ruleBody('stored rule under test', {
      description: 'd',
      ruleConfig: leaf('errorRate', 'GREATER_THAN', 99),
      priority: 3,
      suppressionWindowMinutes: 0,
    }),
  );
  // Paused before its condition can hold, so that the live evaluation never fires it and its
  // trigger fields stay as set here while we compare.
  await api.action(created.id, 'disable');
  const rule = await api.put(created.id, { ruleConfig: leaf('errorRate', 'GREATER_THAN', 50) });
  t.equal(rule.status, 'PAUSED');
  await svc.db.sql`
    UPDATE rules SET updated_at = '2020-01-01T00:00:00.000Z', trigger_count = 7,
                     last_triggered_at = '2020-01-01T00:00:00.000Z'
    WHERE id = ${rule.id}`;
  const before = await storedRow(svc.db, rule.id);
  const stored = await api.get(rule.id);

  const result = await api.testStored(rule.id);
  assertPassed(t, result, 'SUCCESS', 'stored rule');
  t.equal(result.generatedDrl, stored.generatedDrl, 'the DRL it was stored with');
  t.same(brief(result.simulationResult), {
    wouldTrigger: true,
    matchedConditions: ['errorRate 75 > 50'],
    currentValues: { errorRate: 75 },
  });
  t.match(result.recommendations.join('\n'), /suppression window/, 'its own settings are read');

  const again = await api.testStored(rule.id);
  t.same(again, result, 'the same answer twice');
  t.same(await storedRow(svc.db, rule.id), before, 'the row is byte for byte unchanged');
  t.same(await api.get(rule.id), stored, 'the API shows the same rule');

  const body = await svc.request(`/api/v1/rules/test/${rule.id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ruleConfig: leaf('errorRate', 'LESS_THAN', 1), name: 'other' }),
  });
  t.equal(body.status, 200, 'a body on /test/{id} is ignored');
  t.same(await body.json(), result, 'the stored rule is tested, not the body');
  t.same(await storedRow(svc.db, rule.id), before, 'still unchanged');

  // An ANOMALY rule stored before the type had keys: its test fails, saying why.
  const anomaly = await storeLegacyRule(svc.db, 'stored anomaly', 'ANOMALY', { k: 1 });
  const legacy = await api.testStored(anomaly);
  t.equal(legacy.success, false, 'stored ANOMALY');
  t.match(legacy.validationErrors, [/^Unknown property 'k'. ANOMALY keys are metric/]);

  await expectError(t, await api.send('POST', `/test/${rule.id + 1000}`), 404, 'NOT_FOUND');
  await expectError(t, await api.send('POST', '/test/abc'), 400, 'VALIDATION_FAILED', ['id']);
});

void t.test('/test/{id} of a rule held back by its suppression window says so', async (t) => {
  // ACTIVE and true (errorRate 75 > 50): the live evaluation fires it once, then suppresses it.
  const rule = await api.create(
    ruleBody('fires then is suppressed', {
      ruleConfig: leaf('errorRate', 'GREATER_THAN', 50),
      suppressionWindowMinutes: 30,
    }),
  );
  let fired: Record<string, string> | null = null;
  for (let attempt = 0; attempt < 200 && fired === null; attempt++) {
    const row = await storedRow(svc.db, rule.id);
    if (row !== null && Number(row.trigger_count) >= 1) fired = row;
    else await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (fired === null) throw new Error('the ACTIVE rule never fired');
  const stored = await api.get(rule.id);
  t.equal(stored.triggerCount, 1, 'fired once, then suppressed');
  t.type(stored.lastTriggeredAt, 'string');

  const result = await api.testStored(rule.id);
  assertPassed(t, result, 'SUCCESS', 'suppressed rule');
  t.equal(result.simulationResult?.wouldTrigger, true, 'throttling is not applied in a test');
  t.match(result.message, /suppressed until .*suppressionWindowMinutes 30/, 'the message says so');
  t.same(await storedRow(svc.db, rule.id), fired, 'the test changed nothing');
});
