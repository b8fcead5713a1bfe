// PATTERN rules end to end on the real service (issue 20): events posted over HTTP, committed by
// a storage worker, matched in the metrics actor. "3 failed logins then a success for the same
// userId within 5 minutes" fires once with its explanation (partition key, event ids and times);
// a retried request (same idempotency key) does not count twice; an `absent` rule fires at its
// deadline; GET /rules/{id}/status shows the partitions; the rule test replays the last hour.
import t from 'tap';
import { Type } from '@sinclair/typebox';
import { expectJson, rulesApi, type Rule } from '../support/rules.ts';
import { startTestService } from '../support/service.ts';
import { alertsOf, waitUntil, type Alert } from './alerts-helpers.ts';
import { postJson } from './helpers.ts';
import { LOGIN_CONFIG } from '../domain/rules/kinds/pattern/fixtures.ts';

const svc = await startTestService(t, { RULE_EVALUATION_MS: '200' });
const rules = rulesApi(svc);

interface Status {
  ruleId: number;
  ruleType: string;
  status: string;
  evaluated: boolean;
  state: string | null;
  pattern?: {
    partitions: number;
    maxPartitions: number;
    partitionsEvicted: number;
    matches: number;
  };
}

const statusOf = async (id: number): Promise<Status> =>
  (await expectJson(Type.Any(), await svc.request(`/api/v1/rules/${id}/status`), 200)) as Status;

/** Posts one event (with an idempotency key when given); answers its eventId. */
async function post(
  eventType: string,
  userId: string,
  metadata: Record<string, unknown> = {},
  idempotencyKey?: string,
): Promise<string> {
  const body = {
    eventType,
    source: 'auth',
    userId,
    metadata,
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
  };
  const ack = (await postJson(svc, '/api/v1/events', body, 202)) as {
    eventId: string;
  };
  return ack.eventId;
}
const fail = (userId: string, key?: string) => post('login', userId, { success: false }, key);
const success = (userId: string) => post('login', userId, { success: true });

let login: Rule;

void t.test('3 failed logins then a success: one alert, explained', async (t) => {
  login = await rules.create({
    name: 'Brute force then success',
    ruleType: 'PATTERN',
    ruleConfig: LOGIN_CONFIG,
    severity: 'HIGH',
    suppressionWindowMinutes: 0,
  });
  t.match(login.generatedDrl, /eval\( \$m\.pattern\(/);
  t.same(await statusOf(login.id), {
    ruleId: login.id,
    ruleType: 'PATTERN',
    status: 'ACTIVE',
    evaluated: true,
    state: 'OK',
    pattern: { partitions: 0, maxPartitions: 100_000, partitionsEvicted: 0, matches: 0 },
  });

  const ids = [
    await fail('alice'),
    await post('page', 'alice'),
    await fail('alice'),
    await fail('alice'),
  ];
  const ok = await success('alice');
  const [alert, ...more] = await waitUntil(
    () => alertsOf(svc, login.id),
    (alerts) => alerts.length > 0,
    "alice's alert",
  );
  t.same(more, [], 'one alert');
  const a = alert as Alert;
  t.equal(a.state, 'FIRING');
  t.match(
    a.explanationText,
    new RegExp(
      `^userId=alice: login x3 \\(${ids[0]} at .* \\.\\. ${ids[3]} at .*\\) then login \\(${ok} at .*\\) within 5 min$`,
    ),
  );
  t.match(a.explanation, {
    pattern: 'PATTERN',
    partitionBy: 'userId',
    result: true,
    matchCount: 1,
    matches: [
      {
        partitionKey: 'alice',
        steps: [
          { eventType: 'login', events: 3, first: { eventId: ids[0] }, last: { eventId: ids[3] } },
          { eventType: 'login', events: 1, first: { eventId: ok }, last: { eventId: ok } },
        ],
        absent: null,
      },
    ],
  });
  t.equal(
    a.condition,
    'by userId within 5 min: login[metadata.success == false] x3 -> login[metadata.success == true]',
  );
  const status = await statusOf(login.id);
  t.equal(status.pattern?.matches, 1);
  t.equal(status.pattern?.partitions, 0, 'a matched key holds nothing');
});

void t.test('the backtest replays the stored events through the same matcher', async (t) => {
  const [live] = await alertsOf(svc, login.id);
  const firedAt = Date.parse((live as Alert).firedAt);
  const res = await svc.request('/api/v1/rules/backtest', {
    json: {
      ruleId: login.id,
      from: new Date(firedAt - 10 * 60_000).toISOString(),
      to: new Date(Date.now() + 1000).toISOString(),
    },
  });
  const body = (await res.json()) as {
    transitions: { transition: string; explanation: unknown }[];
  };
  t.equal(res.status, 200, JSON.stringify(body).slice(0, 300));
  const fired = body.transitions.filter((tr) => tr.transition === 'FIRING');
  t.ok(fired.length >= 1, 'the stored sequence fires in the replay');
  t.match(fired[0]?.explanation, {
    pattern: 'PATTERN',
    matches: [{ partitionKey: 'alice', steps: [{ events: 3 }, { events: 1 }] }],
  });
});

/** Sequences completed between two evaluations share one alert: the matches of `key` in any. */
type Matches = { matches: { partitionKey: string }[] };
const matchesOf = (alerts: Alert[], key: string) =>
  alerts
    .flatMap((a) => (a.explanation as unknown as Matches).matches)
    .filter((m) => m.partitionKey === key);

/**
 * A sequence completing while the rule's incident is FIRING keeps it open rather than alerting
 * on its own: waits until an alert names `key` and every incident of the rule has resolved.
 */
const alertedAndResolved = (key: string): Promise<Alert[]> =>
  waitUntil(
    () => alertsOf(svc, login.id),
    (alerts) => matchesOf(alerts, key).length > 0 && alerts.every((a) => a.state === 'RESOLVED'),
    `${key}'s alert, resolved`,
  );

void t.test('a retried request (same idempotency key) does not count twice', async (t) => {
  await alertedAndResolved('alice');
  const first = await fail('bob', 'bob-1');
  t.equal(await fail('bob', 'bob-1'), first, 'the retry answers the stored event');
  await fail('bob', 'bob-2');
  t.equal(await fail('bob', 'bob-2'), await fail('bob', 'bob-2'));
  await success('bob'); // two distinct failures only: no sequence
  // Commit order is match order: once carol's sequence counted, bob's events were seen too.
  for (let i = 0; i < 3; i++) await fail('carol');
  await success('carol');
  const after = await waitUntil(
    () => statusOf(login.id),
    (s) => (s.pattern?.matches ?? 0) >= 2,
    "carol's match",
  );
  t.equal(after.pattern?.matches, 2, "bob's repeated failures did not complete a sequence");
  await alertedAndResolved('carol');
  const third = await fail('bob');
  const ok = await success('bob');
  const bobs = matchesOf(await alertedAndResolved('bob'), 'bob');
  t.match(bobs, [
    {
      partitionKey: 'bob',
      steps: [{ first: { eventId: first }, last: { eventId: third } }, { first: { eventId: ok } }],
    },
  ]);
});

void t.test(
  'absent: fires at its deadline, only for the key the event did not follow',
  async (t) => {
    const rule = await rules.create({
      name: 'Checkout without payment',
      ruleType: 'PATTERN',
      ruleConfig: {
        partitionBy: 'userId',
        withinMinutes: 1,
        steps: [{ eventType: 'checkout' }],
        absent: { eventType: 'payment', withinMinutes: 0.05 },
      },
      severity: 'MEDIUM',
    });
    const dan = await post('checkout', 'dan');
    await post('checkout', 'eve');
    await post('payment', 'eve');
    const [alert] = await waitUntil(
      () => alertsOf(svc, rule.id),
      (alerts) => alerts.length > 0,
      'the absence alert',
    );
    const a = alert as Alert;
    t.match(a.explanation, {
      matchCount: 1,
      matches: [
        {
          partitionKey: 'dan',
          steps: [{ first: { eventId: dan } }],
          absent: { eventType: 'payment' },
        },
      ],
    });
    const match = (
      a.explanation as unknown as {
        matches: { completedAt: string; absent: { deadline: string } }[];
      }
    ).matches[0];
    t.equal(
      Date.parse(match?.absent.deadline ?? '') - Date.parse(match?.completedAt ?? ''),
      3000,
      'deadline = completion + 3 s',
    );
    t.ok(
      Date.parse(a.firedAt) >= Date.parse(match?.absent.deadline ?? ''),
      'fired at or after the deadline',
    );
  },
);

void t.test('status: 404 for no rule; the rule test replays the last hour', async (t) => {
  t.equal((await svc.request('/api/v1/rules/999999/status')).status, 404);
  t.equal((await svc.request('/api/v1/rules/abc/status')).status, 400);
  const result = (await expectJson(
    Type.Any(),
    await svc.request('/api/v1/rules/test', {
      json: {
        name: 'replay',
        ruleType: 'PATTERN',
        severity: 'LOW',
        ruleConfig: LOGIN_CONFIG,
      },
    }),
    200,
  )) as {
    success: boolean;
    message: string;
    simulationResult: { wouldTrigger: boolean; currentValues: Record<string, number> };
    recommendations: string[];
  };
  t.equal(result.success, true);
  t.equal(result.simulationResult.wouldTrigger, true);
  t.equal(result.simulationResult.currentValues['matches'], 3, 'alice, carol and bob');
  t.match(result.message, /3 sequences would have completed, the last: userId=bob/);
  t.ok(
    result.recommendations.some((r) =>
      /The last hour would have held at most \d+ partitions at once/.test(r),
    ),
  );
  const stored = (await expectJson(
    Type.Any(),
    await svc.request(`/api/v1/rules/test/${login.id}`, { method: 'POST' }),
    200,
  )) as { simulationResult: { currentValues: Record<string, number> } };
  t.equal(stored.simulationResult.currentValues['matches'], 3);
  const bad = (await expectJson(
    Type.Any(),
    await svc.request('/api/v1/rules/test', {
      json: {
        name: 'bad',
        ruleType: 'PATTERN',
        severity: 'LOW',
        ruleConfig: { ...LOGIN_CONFIG, partitionBy: 'user' },
      },
    }),
    200,
  )) as { success: boolean; validationErrors: string[] };
  t.same(bad.validationErrors, ['Invalid partitionBy "user". Did you mean \'userId\'?']);
  const create = await svc.request('/api/v1/rules', {
    json: {
      name: 'bad',
      ruleType: 'PATTERN',
      severity: 'LOW',
      ruleConfig: { ...LOGIN_CONFIG, withinMinutes: 2000 },
    },
  });
  const body = (await expectJson(Type.Any(), create, 400)) as { errors: Record<string, string> };
  t.match(JSON.stringify(body.errors), /Invalid withinMinutes 2000/);
});
