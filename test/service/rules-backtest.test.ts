// The backtest (issue 20 section 4) against a real server and PostgreSQL: a seeded week replayed
// by POST /api/v1/rules/backtest gives the transitions expected of it, the same (times and values)
// as a live evaluator ticking every second on an injected clock over the same events; silences
// stored for the range hold notifications back; bad input, a second backtest of the same key and a
// spent time budget are answered as docs/backtest.md says.
import t, { type Test } from 'tap';
import type { BacktestResult } from '../../src/domain/rules/backtest/backtest-result.ts';
import type { RuleRecord } from '../../src/domain/rules/rule.ts';
import {
  BURSTS,
  DAY,
  MINUTE,
  liveTransitions,
  seedEvents,
  weekOfEvents,
} from '../support/backtest-week.ts';
import { expectError } from '../support/events.ts';
import { rulesApi } from '../support/rules.ts';
import { startTestService } from '../support/service.ts';

const svc = await startTestService(t);
const rules = rulesApi(svc);
const start = Math.floor(Date.now() / MINUTE) * MINUTE - 8 * DAY;
const from = start;
const to = start + 7 * DAY;
const events = weekOfEvents(start);
await seedEvents(svc.db.sql, events);

const errorRule = {
  name: 'Payment errors',
  ruleType: 'THRESHOLD',
  severity: 'HIGH',
  ruleConfig: {
    metric: 'errorRate',
    operator: 'GREATER_THAN',
    threshold: 50,
    windowMinutes: 5,
    pendingSeconds: 60,
    keepFiringSeconds: 120,
  },
  notificationChannels: ['webhook'],
  suppressionWindowMinutes: 0,
};
const surgeRule = {
  name: 'Traffic surge',
  ruleType: 'RATE_CHANGE',
  severity: 'MEDIUM',
  ruleConfig: {
    metric: 'totalEvents',
    operator: 'GREATER_THAN',
    threshold: 100,
    windowMinutes: 10,
  },
  suppressionWindowMinutes: 0,
};

const backtest = (json: unknown, headers?: Record<string, string>): Promise<Response> =>
  svc.request('/api/v1/rules/backtest', { json, ...(headers === undefined ? {} : { headers }) });

async function run(t: Test, json: unknown): Promise<BacktestResult> {
  const res = await backtest(json);
  const body = (await res.json()) as BacktestResult;
  t.equal(res.status, 200, `backtest answered 200: ${JSON.stringify(body).slice(0, 300)}`);
  return body;
}

const iso = (ms: number): string => new Date(ms).toISOString();

void t.test(
  'a seeded week: the expected transitions, and the same as the live evaluator',
  async (t) => {
    // A silence of every rule over the second burst: that incident is not notified.
    // Stored straight into PostgreSQL: the API does not take a silence that ended already.
    const [silence] = await svc.db.sql<{ id: string }[]>`
    INSERT INTO silences (rule_id, severity, starts_at, ends_at, comment, created_by)
    VALUES (NULL, NULL, ${iso(start + BURSTS[1]! * MINUTE - 30 * MINUTE)},
            ${iso(start + BURSTS[1]! * MINUTE + 60 * MINUTE)}, 'maintenance', 'test')
    RETURNING id`;
    const silenceId = Number(silence!.id);

    const stored = (await rules.create(errorRule)) as unknown as RuleRecord;
    const result = await run(t, { ruleId: stored.id, from: iso(from), to: iso(to) });
    t.equal(result.truncated, false, 'not truncated');
    t.equal(result.counts.ticks, (to - from) / 1000, 'one tick a second, as live');
    t.equal(result.counts.events, events.length, 'every stored event replayed');
    t.same(
      result.transitions.map((x) => x.transition),
      ['FIRING', 'RESOLVED', 'FIRING', 'RESOLVED', 'FIRING', 'RESOLVED'],
      'each burst fires once and resolves',
    );
    result.transitions.forEach((x, i) => {
      const burst = start + BURSTS[Math.floor(i / 2)]! * MINUTE;
      const at = Date.parse(x.at);
      if (x.transition === 'FIRING') {
        // Pending 60 s after the rate crossed 50 % (within the burst's first minutes).
        t.ok(at >= burst + 60_000 && at < burst + 5 * MINUTE, `FIRING ${i} within the burst`);
        t.ok((x.values?.errorRate ?? 0) > 50, 'its value explains it');
        t.match(x.explanationText, /errorRate/, 'with its explanation');
      } else {
        t.ok(at > burst + 10 * MINUTE && at < burst + 20 * MINUTE, `RESOLVED ${i} after the burst`);
      }
    });
    t.same(
      result.notifications.map((n) => [n.transition, n.sent, n.notSentReason]),
      [
        ['FIRING', true, null],
        ['RESOLVED', true, null],
        ['FIRING', false, 'silenced'],
        ['RESOLVED', false, 'silenced'],
        ['FIRING', true, null],
        ['RESOLVED', true, null],
      ],
      'the silenced incident is neither notified fired nor resolved',
    );
    t.equal(result.transitions[2]!.silenceId, silenceId, 'the silence is named');
    t.equal(result.counts.notificationsSent, 4, 'four notifications sent');
    t.ok(
      result.chart.times.length > 1000 && result.chart.times.length <= 2000,
      'a chart of the week',
    );
    t.match(result.chart.series[0], { kind: 'threshold', threshold: 50 }, 'with the threshold');
    t.ok(
      result.chart.series[0]!.values.some((v) => v !== null && v > 50),
      'the chart shows the bursts',
    );

    const live = liveTransitions(stored, events, from, to);
    t.same(
      result.transitions.map(({ transition, at, values }) => ({ transition, at, values })),
      live,
      'the backtest decides what the live evaluator decided, at the same ticks, with the same values',
    );
  },
);

void t.test('RATE_CHANGE: the same transitions as live', async (t) => {
  const stored = (await rules.create(surgeRule)) as unknown as RuleRecord;
  const result = await run(t, { rule: surgeRule, from, to });
  const firings = result.transitions
    .filter((x) => x.transition === 'FIRING')
    .map((x) => Date.parse(x.at));
  for (const b of BURSTS) {
    const burst = start + b * MINUTE;
    t.ok(
      firings.some((at) => at >= burst && at < burst + 10 * MINUTE),
      'each burst is a surge',
    );
  }
  t.same(
    result.transitions.map(({ transition, at, values }) => ({ transition, at, values })),
    liveTransitions(stored, events, from, to),
    'a draft replays as the stored rule runs live',
  );
  t.equal(result.notifications[0]!.notSentReason, 'no-channels', 'no channels: nothing sent');
});

void t.test('bad input is a 400 naming the field; an unknown rule a 404', async (t) => {
  await expectError(
    t,
    await backtest({ ruleId: 1, from, to: from + 8 * DAY }),
    400,
    'VALIDATION_FAILED',
    ['to'],
  );
  await expectError(t, await backtest({ ruleId: 1, from, to: from }), 400, 'VALIDATION_FAILED', [
    'to',
  ]);
  await expectError(
    t,
    await backtest({ ruleId: 1, from: 'yesterday', to }),
    400,
    'VALIDATION_FAILED',
    ['from'],
  );
  await expectError(t, await backtest({ from, to }), 400, 'VALIDATION_FAILED', ['rule']);
  await expectError(t, await backtest({ ruleId: 999_999, from, to }), 404, 'NOT_FOUND');
  const bad = { ...errorRule, ruleConfig: { ...errorRule.ruleConfig, metric: 'errorRat' } };
  const created = await expectError(
    t,
    await rules.send('POST', '', bad),
    400,
    'VALIDATION_FAILED',
    ['ruleConfig'],
  );
  const tested = await expectError(
    t,
    await backtest({ rule: bad, from, to }),
    400,
    'VALIDATION_FAILED',
    ['rule.ruleConfig'],
  );
  t.equal(
    tested.errors?.['rule.ruleConfig'],
    created.errors?.['ruleConfig'],
    'the message create gives',
  );
});

void t.test('one backtest per key at a time: the second gets 429 with a JSON body', async (t) => {
  const body = { rule: errorRule, from, to };
  const answers = await Promise.all([backtest(body), backtest(body)]);
  const statuses = answers.map((r) => r.status).sort();
  t.same(statuses, [200, 429], 'one runs, the other is refused');
  const refused = answers.find((r) => r.status === 429) as Response;
  await expectError(t, refused, 429, 'RATE_LIMITED');
  await answers.find((r) => r.status === 200)?.json();
});

void t.test('a spent time budget answers what was done, truncated', async (t) => {
  const tight = await startTestService(t, { BACKTEST_TIME_BUDGET_MS: '1' });
  await seedEvents(tight.db.sql, events.slice(0, 20_000));
  const res = await tight.request('/api/v1/rules/backtest', {
    json: { rule: errorRule, from, to },
  });
  t.equal(res.status, 200, '200');
  const result = (await res.json()) as BacktestResult;
  t.equal(result.truncated, true, 'truncated');
  t.match(result.truncatedReason, /time budget of 1 ms/, 'the reason says so');
  t.ok(Date.parse(result.evaluatedUntil ?? '') < to - 1000, 'it stopped before the end');
});
