// Alerts end to end over real sockets (DESIGN 6, issue 18): a rule fires on events posted through
// the API, the incident reaches /topic/alerts (a real @stomp/stompjs client), GET /api/v1/alerts
// (every filter, paging), GET /api/v1/alerts/{id} and GET /api/v1/rules/{id}/alerts; the rule counts
// it; the condition clears and the same alert resolves with the values at recovery; it is
// acknowledged; a disabled rule resolves its incident and stops firing; a deleted rule's alerts
// stay; bad requests are 400 / 404; evaluation-stats counts the rules.
import t from 'tap';
import { Type } from '@sinclair/typebox';
import type { Client } from '@stomp/stompjs';
import { expectError } from '../support/events.ts';
import { expectJson, rulesApi, type Rule } from '../support/rules.ts';
import { startTestService } from '../support/service.ts';
import { connectStomp } from '../stomp/helpers.ts';
import {
  AlertMessageSchema,
  AlertSchema,
  alertPage,
  alertsOf,
  atFire,
  localTime,
  evaluationsPass,
  pumpErrors,
  waitUntil,
  type Alert,
  type AlertMessage,
} from './alerts-helpers.ts';
import { check } from './helpers.ts';

const EVALUATION_MS = 200;
// EVALUATION_CPU_STATS: evaluation-stats reports the time on a CPU too (off by default).
const svc = await startTestService(t, {
  RULE_EVALUATION_MS: String(EVALUATION_MS),
  EVALUATION_CPU_STATS: 'true',
});
const rules = rulesApi(svc);

/** Every MESSAGE on /topic/alerts since the test started, parsed and checked. */
const messages: AlertMessage[] = [];
/** The FIRING ones, as alerts. */
const received: Alert[] = [];
const { client } = await connectStomp(`ws://127.0.0.1:${svc.service.port}/ws`);
t.teardown(() => client.deactivate());
await subscribed(client);

async function subscribed(stomp: Client): Promise<void> {
  const receipt = new Promise<void>((resolve) =>
    stomp.watchForReceipt('alerts-subscribed', () => resolve()),
  );
  stomp.subscribe(
    '/topic/alerts',
    (message) => {
      if (message.headers['content-type']?.startsWith('application/json') !== true) {
        throw new Error(`content-type ${message.headers['content-type']}`);
      }
      const parsed = check(AlertMessageSchema, JSON.parse(message.body));
      messages.push(parsed);
      const { transition, ...alert } = parsed;
      if (transition === 'FIRING') received.push(alert);
    },
    { receipt: 'alerts-subscribed' },
  );
  await receipt;
}

const errorRateRule = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  ruleType: 'THRESHOLD',
  ruleConfig: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 20, windowMinutes: 1 },
  severity: 'CRITICAL',
  ...extra,
});

let first: Rule;
let firstAlert: Alert;
let second: Rule;
let secondAlert: Alert;

void t.test('a rule fires: /topic/alerts, GET /alerts, GET /rules/{id}/alerts', async (t) => {
  first = await rules.create(
    errorRateRule('High error rate', { description: 'errors above 20 %', priority: 5 }),
  );
  t.equal(first.triggerCount, 0);
  t.equal(first.lastTriggeredAt, null);

  const pump = pumpErrors(svc);
  try {
    await waitUntil(
      () => received,
      (r) => r.some((a) => a.ruleId === first.id),
      'the alert on /topic/alerts',
    );
  } finally {
    await pump.stop();
  }
  const published = received.filter((a) => a.ruleId === first.id);
  t.equal(published.length, 1, 'one alert: the default suppression holds the rest back');
  firstAlert = published[0] as Alert;
  t.match(firstAlert, {
    ruleId: first.id,
    ruleName: 'High error rate',
    ruleVersion: 1,
    severity: 'CRITICAL',
    matchedConditions: ['errorRate 100 > 20'],
    currentValues: { errorRate: 100 },
    condition: 'errorRate > 20 [1 min]',
    message: "Rule 'High error rate' (CRITICAL) triggered: errorRate 100 > 20",
    deliveries: [],
    state: 'FIRING',
    firedAt: firstAlert.triggeredAt,
    resolvedAt: null,
    valuesAtFire: { errorRate: 100 },
    valuesAtResolve: null,
    acknowledgedAt: null,
    explanationText: 'errorRate over 1 min = 100 > 20',
    explanation: { metric: 'errorRate', windowMinutes: 1, value: 100, result: true },
  });
  t.same(Object.keys(firstAlert.currentValues), ['errorRate']);

  const all = await alertPage(svc);
  t.same(all.content.map(atFire), [atFire(firstAlert)], 'GET /api/v1/alerts: as published');
  t.match(all, { totalElements: 1, totalPages: 1, number: 0, size: 20, first: true, last: true });
  const ofRule = await alertPage(svc, '', `/api/v1/rules/${first.id}/alerts`);
  t.same(ofRule.content.map(atFire), [atFire(firstAlert)], 'GET /api/v1/rules/{id}/alerts');
  const one = await expectJson(
    AlertSchema,
    await svc.request(`/api/v1/alerts/${firstAlert.id}`),
    200,
  );
  t.same(atFire(one), atFire(firstAlert), 'GET /api/v1/alerts/{id}');

  const counted = await rules.get(first.id);
  t.equal(counted.triggerCount, 1, 'triggerCount counts it');
  t.equal(
    counted.lastTriggeredAt,
    localTime(firstAlert.triggeredAt),
    'lastTriggeredAt is its time',
  );
  t.equal(counted.version, first.version, 'counting a trigger is no edit: version unchanged');
  const [row] = await svc.db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM alerts`;
  t.equal(row?.n, 1, 'one stored alert');

  const test = await rules.testStored(first.id);
  t.match(test.message, /suppress/i, 'the rule test says the stored rule is held back');
});

void t.test('filters and paging', async (t) => {
  second = await rules.create(
    errorRateRule('Any error', {
      ruleConfig: {
        metric: 'totalErrors',
        operator: 'GREATER_THAN_OR_EQUAL',
        threshold: 1,
        windowMinutes: 1,
      },
      severity: 'LOW',
    }),
  );
  const pump = pumpErrors(svc);
  try {
    await waitUntil(
      () => received,
      (r) => r.some((a) => a.ruleId === second.id),
      'the second alert',
    );
  } finally {
    await pump.stop();
  }
  // Both rules' alerts are stored (first is still suppressed): two in all.
  const all = await waitUntil(
    () => alertPage(svc),
    (p) => p.totalElements === 2,
    'two alerts',
  );
  secondAlert = all.content[0] as Alert;
  t.equal(secondAlert.ruleId, second.id, 'newest first');
  t.same(all.content.map(atFire), [secondAlert, firstAlert].map(atFire));
  t.match(secondAlert, {
    ruleName: 'Any error',
    severity: 'LOW',
    condition: 'totalErrors >= 1 [1 min]',
  });
  t.match(secondAlert.matchedConditions, [/^totalErrors \d+ >= 1$/]);

  const ids = async (query: string, path?: string): Promise<number[]> =>
    (await alertPage(svc, query, path)).content.map((a) => a.id);
  t.same(await ids(`?ruleId=${first.id}`), [firstAlert.id], 'ruleId');
  t.same(await ids(`?ruleId=${second.id}`), [secondAlert.id]);
  t.same(await ids('?ruleId=999999'), [], 'a ruleId without alerts: empty');
  t.same(await ids('?severity=LOW'), [secondAlert.id], 'severity');
  t.same(await ids('?severity=CRITICAL'), [firstAlert.id]);
  t.same(await ids('?severity=MEDIUM'), []);
  t.same(await ids(`?since=${firstAlert.triggeredAt}`), [secondAlert.id, firstAlert.id], 'since');
  t.same(await ids(`?since=${secondAlert.triggeredAt}`), [secondAlert.id], 'since is inclusive');
  const later = new Date(Date.parse(secondAlert.triggeredAt) + 1).toISOString();
  t.same(await ids(`?since=${later}`), []);
  const offset = new Date(Date.parse(secondAlert.triggeredAt) + 3_600_000)
    .toISOString()
    .replace('Z', '+01:00');
  t.same(await ids(`?since=${encodeURIComponent(offset)}`), [secondAlert.id], 'a zone offset');
  t.same(await ids(`?ruleId=${first.id}&severity=LOW`), [], 'filters combine');
  t.same(await ids(`?ruleId=${second.id}&severity=LOW&since=${firstAlert.triggeredAt}`), [
    secondAlert.id,
  ]);
  t.same(await ids(`?from=${firstAlert.triggeredAt}`), [secondAlert.id, firstAlert.id], 'from');
  t.same(await ids(`?to=${secondAlert.triggeredAt}`), [firstAlert.id], 'to is exclusive');
  t.same(await ids(`?from=${firstAlert.triggeredAt}&to=${later}`), [secondAlert.id, firstAlert.id]);
  const byState = async (state: string) => (await alertPage(svc, `?state=${state}`)).content;
  t.ok(
    (await byState('FIRING')).every((a) => a.state === 'FIRING') &&
      (await byState('RESOLVED')).every((a) => a.state === 'RESOLVED'),
    'state',
  );
  t.equal((await byState('FIRING')).length + (await byState('RESOLVED')).length, 2);
  const path = `/api/v1/rules/${first.id}/alerts`;
  t.same(await ids('?severity=LOW', path), [], "a rule's alerts, filtered");
  t.same(await ids(`?ruleId=${second.id}`, path), [firstAlert.id], 'the path names the rule');

  const page0 = await alertPage(svc, '?size=1');
  t.match(page0, { totalElements: 2, totalPages: 2, size: 1, number: 0, first: true, last: false });
  t.same(
    page0.content.map((a) => a.id),
    [secondAlert.id],
  );
  const page1 = await alertPage(svc, '?size=1&page=1');
  t.match(page1, { totalElements: 2, number: 1, first: false, last: true });
  t.same(
    page1.content.map((a) => a.id),
    [firstAlert.id],
  );
  t.same(await ids('?since=0001-01-01T00:00:00Z'), [secondAlert.id, firstAlert.id], 'year 1');
  t.same(await ids('?since=0000-01-01T00:00:00Z'), [secondAlert.id, firstAlert.id], 'year 0');
  t.same(await ids('?since=9999-12-31T23:59:59.999Z'), [], 'year 9999');
  t.same(await ids('?since=2026-01-01T00:00:00-23:59'), [secondAlert.id, firstAlert.id]);
  const far = await alertPage(svc, '?page=999999999999999&size=100');
  t.match(far, { totalElements: 2, empty: true, number: 999999999999999 }, 'a page far away');
  const beyond = await alertPage(svc, '?page=5');
  t.match(beyond, { totalElements: 2, empty: true, numberOfElements: 0 });
});

void t.test('a disabled rule resolves its incident and stops firing', async (t) => {
  // Over 5 minutes: a minute boundary does not clear it (a 1-minute window starts empty).
  const noisy = await rules.create(
    errorRateRule('Noisy', {
      suppressionWindowMinutes: 0,
      maxAlertsPerHour: 3600,
      ruleConfig: {
        metric: 'errorRate',
        operator: 'GREATER_THAN',
        threshold: 20,
        windowMinutes: 5,
      },
    }),
  );
  const pump = pumpErrors(svc);
  try {
    const [incident] = await waitUntil(
      () => alertsOf(svc, noisy.id),
      (a) => a.length === 1,
      'the incident of a rule without suppression',
    );
    // The condition holds throughout: one incident, FIRING, not one alert per evaluation.
    await evaluationsPass(svc, 3);
    t.equal((await alertsOf(svc, noisy.id)).length, 1, 'one incident while the condition holds');
    await rules.action(noisy.id, 'disable');
    const disabledAt = Date.now();
    const [resolved] = await waitUntil(
      () => alertsOf(svc, noisy.id),
      (a) => a[0]?.state === 'RESOLVED',
      'the incident resolved by the pause',
    );
    t.match(resolved, {
      id: incident?.id,
      resolvedReason: 'rule paused',
      valuesAtResolve: null,
      resolveExplanation: null,
    });
    await waitUntil(
      () => messages,
      (m) => m.some((x) => x.id === incident?.id && x.transition === 'RESOLVED'),
      'RESOLVED on /topic/alerts',
    );
    // The condition still holds (the pump keeps going) over several evaluations.
    await evaluationsPass(svc, 3);
    const afterwards = await alertsOf(svc, noisy.id);
    t.equal(afterwards.length, 1, 'no new alert');
    t.same(
      afterwards.filter((a) => Date.parse(a.triggeredAt) > disabledAt),
      [],
      'none fired after the 200 of disable',
    );
    const rule = await rules.get(noisy.id);
    t.equal(rule.status, 'PAUSED');
    t.equal(rule.triggerCount, 1, 'triggerCount = incidents');
    t.equal(rule.lastTriggeredAt, localTime((afterwards[0] as Alert).triggeredAt));

    // Enabled again, it fires again, a new incident: the condition did hold all along.
    await rules.action(noisy.id, 'enable');
    const again = await waitUntil(
      () => alertsOf(svc, noisy.id),
      (a) => a.length === 2,
      'an alert after enable',
    );
    t.equal(again[0]?.state, 'FIRING');
    t.not(again[0]?.id, incident?.id);
    await rules.action(noisy.id, 'archive');
    await waitUntil(
      () => alertsOf(svc, noisy.id),
      (a) => a[0]?.resolvedReason === 'rule archived',
      'the new incident resolved by the archive',
    );
  } finally {
    await pump.stop();
  }
});

void t.test(
  'the condition clears: the same alert resolves with the values at recovery',
  async (t) => {
    const rule = await rules.create(
      errorRateRule('Clears', { suppressionWindowMinutes: 0, maxAlertsPerHour: 3600 }),
    );
    const pump = pumpErrors(svc);
    let fired: Alert;
    try {
      [fired] = (await waitUntil(
        () => alertsOf(svc, rule.id),
        (a) => a.length === 1,
        'the incident',
      )) as [Alert];
    } finally {
      await pump.stop();
    }
    // A reset zeroes the metrics: errorRate 0, the condition is false at the next evaluation.
    const reset = await svc.request('/api/v1/metrics/reset', { method: 'POST' });
    t.equal(reset.status, 200);
    const [resolved] = await waitUntil(
      () => alertsOf(svc, rule.id),
      (a) => a[0]?.state === 'RESOLVED',
      'the incident resolved',
    );
    t.match(resolved, {
      id: fired.id,
      state: 'RESOLVED',
      resolvedReason: 'condition cleared',
      valuesAtFire: { errorRate: 100 },
      valuesAtResolve: { errorRate: 0 },
      resolveExplanation: { metric: 'errorRate', value: 0, result: false },
      explanationText: 'errorRate over 1 min = 100 > 20',
    });
    t.ok(Date.parse(resolved?.resolvedAt ?? '') >= Date.parse(fired.firedAt));
    const published = await waitUntil(
      () => messages.filter((m) => m.id === fired.id),
      (m) => m.length === 2,
      'FIRING and RESOLVED on /topic/alerts',
    );
    t.same(
      published.map((m) => [m.transition, m.state]),
      [
        ['FIRING', 'FIRING'],
        ['RESOLVED', 'RESOLVED'],
      ],
    );
    t.same(published[1]?.valuesAtResolve, { errorRate: 0 });
    t.equal((await rules.get(rule.id)).triggerCount, 1, 'a resolution is no trigger');

    // Acknowledged: stored once, published once.
    const ack = async (body: unknown) =>
      svc.request(`/api/v1/alerts/${fired.id}/acknowledge`, { json: body });
    const acked = await expectJson(AlertSchema, await ack({ by: 'ann', comment: 'looking' }), 200);
    t.match(acked, { id: fired.id, acknowledgedBy: 'ann', acknowledgeComment: 'looking' });
    t.ok(acked.acknowledgedAt !== null);
    const twice = await expectJson(AlertSchema, await ack({ by: 'bob' }), 200);
    t.same(twice, acked, 'a second acknowledgement changes nothing: the first one stays');
    await waitUntil(
      () => messages.filter((m) => m.id === fired.id && m.transition === 'ACKNOWLEDGED'),
      (m) => m.length === 1,
      'ACKNOWLEDGED on /topic/alerts',
    );
    await evaluationsPass(svc, 2);
    t.equal(
      messages.filter((m) => m.id === fired.id && m.transition === 'ACKNOWLEDGED').length,
      1,
      'published once',
    );
    t.same(
      (await alertPage(svc, `?state=RESOLVED&ruleId=${rule.id}`)).content.map((a) => a.id),
      [fired.id],
    );
    await rules.action(rule.id, 'disable');
  },
);

void t.test('acknowledge and GET one: 404 and 400 naming the field', async (t) => {
  const ack = (id: string, body: unknown) =>
    svc.request(`/api/v1/alerts/${id}/acknowledge`, { json: body });
  await expectError(t, await svc.request('/api/v1/alerts/999999'), 404, 'NOT_FOUND');
  await expectError(t, await svc.request('/api/v1/alerts/99999999999999999999'), 404, 'NOT_FOUND');
  await expectError(t, await svc.request('/api/v1/alerts/abc'), 400, 'VALIDATION_FAILED', ['id']);
  await expectError(t, await ack('999999', { by: 'ann' }), 404, 'NOT_FOUND');
  await expectError(t, await ack('0', { by: 'ann' }), 400, 'VALIDATION_FAILED', ['id']);
  const id = String(secondAlert.id);
  const bad: [unknown, string[]][] = [
    [{}, ['by']],
    [{ by: '' }, ['by']],
    [{ by: 'x'.repeat(256) }, ['by']],
    [{ by: 7 }, ['by']],
    [{ by: 'ann', comment: 'x'.repeat(2001) }, ['comment']],
    [{ by: 'ann', comment: 5 }, ['comment']],
    [{ by: 'a\u0000b' }, ['by']],
    [{ by: 'ann', note: 'x' }, ['note']],
  ];
  for (const [body, fields] of bad) {
    await expectError(t, await ack(id, body), 400, 'VALIDATION_FAILED', fields);
  }
  t.equal((await alertsOf(svc, second.id))[0]?.acknowledgedBy, null, 'nothing stored');
});

void t.test('a deleted rule keeps its alerts, with its name', async (t) => {
  const res = await rules.send('DELETE', `/${first.id}`);
  t.equal(res.status, 204);
  await expectError(t, await rules.send('GET', `/${first.id}`), 404, 'NOT_FOUND');
  const kept = await waitUntil(
    () => alertsOf(svc, first.id),
    (a) => a[0]?.state === 'RESOLVED',
    'its incident resolved',
  );
  t.same(kept.map(atFire), [atFire(firstAlert)], 'still listed, with ruleName');
  t.match(kept[0]?.resolvedReason, /^(rule deleted|condition cleared)$/);
  const ofRule = await alertPage(svc, '', `/api/v1/rules/${first.id}/alerts`);
  t.same(
    ofRule.content.map(atFire),
    [atFire(firstAlert)],
    'GET /rules/{id}/alerts of a deleted rule: its history',
  );
  t.equal(ofRule.content[0]?.ruleName, 'High error rate');
  const filtered = await alertPage(svc, '?severity=LOW', `/api/v1/rules/${first.id}/alerts`);
  t.same(filtered.content, [], 'a filter that leaves none of a deleted rule: empty, not 404');
});

void t.test('unknown rules 404, bad paths and filters 400', async (t) => {
  await expectError(t, await svc.request('/api/v1/rules/999999/alerts'), 404, 'NOT_FOUND');
  await expectError(t, await svc.request('/api/v1/rules/abc/alerts'), 400, 'VALIDATION_FAILED', [
    'id',
  ]);
  await expectError(t, await svc.request('/api/v1/rules/0/alerts'), 400, 'VALIDATION_FAILED', [
    'id',
  ]);
  const bad: [string, string[]][] = [
    ['ruleId=abc', ['ruleId']],
    ['ruleId=0', ['ruleId']],
    ['ruleId=-1', ['ruleId']],
    ['ruleId=1.5', ['ruleId']],
    ['ruleId=9999999999', ['ruleId']],
    ['severity=high', ['severity']],
    ['severity=', ['severity']],
    ['since=yesterday', ['since']],
    ['since=2026-11-22T10:00:00', ['since']],
    ['since=2026-02-30T10:00:00Z', ['since']],
    ['page=-1', ['page']],
    ['size=0', ['size']],
    ['ruleId=x&severity=y&since=z', ['ruleId', 'severity', 'since']],
    ['state=OPEN', ['state']],
    ['state=firing', ['state']],
    ['from=yesterday', ['from']],
    ['to=2026-11-22T10:00:00', ['to']],
    ['from=2026-11-22T10:00:00Z&since=2026-11-22T10:00:00Z', ['from']],
    ['page=x&severity=y', ['page', 'severity']],
  ];
  for (const [query, fields] of bad) {
    await expectError(
      t,
      await svc.request(`/api/v1/alerts?${query}`),
      400,
      'VALIDATION_FAILED',
      fields,
    );
  }
  await expectError(
    t,
    await svc.request(`/api/v1/rules/${second.id}/alerts?severity=nope`),
    400,
    'VALIDATION_FAILED',
    ['severity'],
  );
});

void t.test('evaluation-stats reports the rules evaluated', async (t) => {
  const StatsSchema = Type.Object(
    {
      rules: Type.Integer({ minimum: 0 }),
      ticks: Type.Integer({ minimum: 0 }),
      p50Ms: Type.Number({ minimum: 0 }),
      p99Ms: Type.Number({ minimum: 0 }),
      maxMs: Type.Number({ minimum: 0 }),
      onCpu: Type.Union([
        Type.Object(
          {
            p50Ms: Type.Number({ minimum: 0 }),
            p99Ms: Type.Number({ minimum: 0 }),
            maxMs: Type.Number({ minimum: 0 }),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ]),
      heap: Type.Object(
        { usedBytes: Type.Integer({ minimum: 1 }), gcRan: Type.Boolean() },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  );
  const stats = async () =>
    expectJson(StatsSchema, await svc.request('/api/v1/rules/evaluation-stats'), 200);
  const active = async () => (await rules.list('/active')).length;
  const before = await stats();
  t.equal(before.rules, await active(), 'the ACTIVE rules: the second one');
  t.equal(before.rules, 1);
  t.ok(before.ticks > 0, 'it has been ticking');
  t.ok(before.p50Ms <= before.p99Ms && before.p99Ms <= before.maxMs);
  // Linux with scheduler statistics (this machine): the time on a CPU is known, and within the
  // wall time (plus the reading of the statistics itself).
  if (before.onCpu === null) t.fail('no on-CPU times: /proc/thread-self/schedstat unreadable');
  else t.ok(before.onCpu.maxMs <= before.maxMs + 1, 'on-CPU time within the wall time');
  // The tests run without --expose-gc: the actor's heap is read as it is, garbage included.
  t.equal(before.heap.gcRan, false, 'no full collection without --expose-gc');

  const extra = await rules.create(
    errorRateRule('Quiet', {
      ruleConfig: { metric: 'totalEvents', operator: 'LESS_THAN', threshold: 0 },
    }),
  );
  t.equal((await stats()).rules, 2, 'a new rule counts at once');
  await rules.action(extra.id, 'archive');
  t.equal((await stats()).rules, 1, 'an archived one no longer');
  await rules.action(second.id, 'disable');
  t.equal((await stats()).rules, 0);

  // ?last=N summarises only the newest N ticks.
  const { p50Ms, p99Ms, maxMs } = await expectJson(
    StatsSchema,
    await svc.request('/api/v1/rules/evaluation-stats?last=1'),
    200,
  );
  t.ok(p50Ms === p99Ms && p99Ms === maxMs, 'one tick: p50 = p99 = max');
  for (const last of ['0', '601', '1.5', 'x', '-1']) {
    const res = await svc.request(`/api/v1/rules/evaluation-stats?last=${last}`);
    const body = await expectError(t, res, 400, 'VALIDATION_FAILED', ['last']);
    t.match(body.errors, { last: /from 1 to 600/ }, `last=${last}`);
  }
});
