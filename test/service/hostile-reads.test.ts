// Issue 29, over real sockets: read keys fire expensive reads at once (10 PATTERN rule tests that
// replay an hour of stored events, 10 backtests, event pages) while a producer ingests. The service
// never dies, every 202 is stored (checked by id in PostgreSQL), a key past its bound gets 429 and
// the total past its bound 503, each with Retry-After and a message naming the setting, and an
// admin key still gets its rule test and its backtest (a slot is kept for admin keys).
import t from 'tap';
import type { NewEvent } from '../../src/domain/event.ts';
import { seedEvents } from '../support/backtest-week.ts';
import { idOf } from '../support/events.ts';
import { keyHeaders } from '../support/keys.ts';
import { startTestService } from '../support/service.ts';

const svc = await startTestService(t, { RULE_TEST_MAX_RUNNING: '3', BACKTEST_MAX_RUNNING: '3' });
const now = Date.now();
const HOUR = 3_600_000;
const seeded: NewEvent[] = Array.from({ length: 30_000 }, (_, i) => ({
  eventType: i % 3 === 0 ? 'checkout' : 'login',
  source: 'web',
  timestamp: now - HOUR + Math.floor((i * (HOUR - 60_000)) / 30_000),
  receivedAt: now - HOUR + Math.floor((i * (HOUR - 60_000)) / 30_000),
  userId: `u${i % 500}`,
  sessionId: null,
  severity: 'INFO',
  tags: {},
  metadata: { i },
}));
await seedEvents(svc.db.sql, seeded);

async function readKey(i: number): Promise<string> {
  const res = await svc.request('/api/v1/keys', { json: { name: `reader ${i}`, scope: 'read' } });
  return ((await res.json()) as { key: string }).key;
}
const readers = await Promise.all(Array.from({ length: 10 }, (_, i) => readKey(i)));

const patternRule = {
  name: 'Login then checkout',
  ruleType: 'PATTERN',
  severity: 'LOW',
  ruleConfig: {
    partitionBy: 'userId',
    withinMinutes: 30,
    steps: [{ eventType: 'login' }, { eventType: 'checkout' }],
  },
};
const thresholdRule = {
  name: 'Errors',
  ruleType: 'THRESHOLD',
  severity: 'HIGH',
  ruleConfig: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 50, windowMinutes: 5 },
};
const ruleTest = (key?: string): Promise<Response> =>
  svc.request('/api/v1/rules/test', {
    method: 'POST',
    json: patternRule,
    ...(key === undefined ? {} : { headers: keyHeaders(key) }),
  });
const backtest = (key?: string): Promise<Response> =>
  svc.request('/api/v1/rules/backtest', {
    method: 'POST',
    json: {
      rule: thresholdRule,
      from: new Date(now - HOUR).toISOString(),
      to: new Date(now).toISOString(),
    },
    ...(key === undefined ? {} : { headers: keyHeaders(key) }),
  });

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly body: { code?: string; message?: string; success?: boolean };
}
const answer = async (res: Promise<Response>): Promise<Answer> => {
  const r = await res;
  return {
    status: r.status,
    retryAfter: r.headers.get('retry-after'),
    body: (await r.json()) as Answer['body'],
  };
};

/** A producer posting one event after another until told to stop; the eventIds it was given. */
function ingest(): { stop: () => Promise<{ ids: number[]; statuses: number[] }> } {
  let running = true;
  const ids: number[] = [];
  const statuses: number[] = [];
  const loop = async (): Promise<void> => {
    for (let i = 0; running; i++) {
      const res = await svc.request('/api/v1/events', {
        method: 'POST',
        json: { eventType: 'hostile.ingest', source: 'producer', metadata: { i } },
      });
      statuses.push(res.status);
      const body = (await res.json()) as { eventId?: string };
      if (res.status === 202 && body.eventId !== undefined) ids.push(idOf(body.eventId));
    }
  };
  const loops = [loop(), loop(), loop()];
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return { ids, statuses };
    },
  };
}

void t.test('10 read keys replay and backtest at once while a producer ingests', async (t) => {
  const producer = ingest();
  const [tests, backtests, admin, pages] = await Promise.all([
    Promise.all(readers.map((key) => answer(ruleTest(key)))),
    Promise.all(readers.map((key) => answer(backtest(key)))),
    Promise.all([answer(ruleTest()), answer(backtest())]),
    Promise.all(
      readers.map((key) =>
        answer(svc.request('/api/v1/events?size=100', { headers: keyHeaders(key) })),
      ),
    ),
  ]);
  const { ids, statuses } = await producer.stop();

  const refusedAsSaid = (a: Answer, setting: RegExp): boolean =>
    a.retryAfter !== null && Number(a.retryAfter) > 0 && setting.test(a.body.message ?? '');
  for (const a of tests) {
    t.ok([200, 503].includes(a.status), `a rule test answers 200 or 503 (${a.status})`);
    if (a.status === 503)
      t.ok(
        refusedAsSaid(a, /RULE_TEST_MAX_RUNNING=3, 1 of them kept for admin/),
        a.body.message ?? '',
      );
  }
  t.ok(
    tests.some((a) => a.status === 200 && a.body.success === true),
    'some rule tests replayed',
  );
  t.ok(
    tests.some((a) => a.status === 503),
    'and the total bound refused the rest',
  );
  for (const a of backtests) {
    t.ok([200, 503].includes(a.status), `a backtest answers 200 or 503 (${a.status})`);
    if (a.status === 503) t.ok(refusedAsSaid(a, /BACKTEST_MAX_RUNNING=3/), a.body.message ?? '');
  }
  t.ok(backtests.filter((a) => a.status === 200).length <= 2, 'read keys held at most 2 of 3');
  const [adminTest, adminBacktest] = admin;
  t.equal(adminTest.status, 200, 'the admin key still tests its rule');
  t.equal(adminBacktest.status, 200, 'and still gets its backtest');
  t.ok(
    pages.every((a) => a.status === 200 || (a.status === 503 && a.retryAfter !== null)),
    `event pages answer (${pages.map((a) => `${a.status} ${a.body.message ?? ''}`).join('; ')})`,
  );

  t.ok(ids.length > 0, `the producer was acknowledged (${ids.length} times)`);
  t.same(
    statuses.filter((s) => s !== 202),
    [],
    'every ingest was acknowledged',
  );
  const stored = await svc.db.sql<{ id: string }[]>`SELECT id FROM events WHERE id = ANY(${ids})`;
  t.equal(stored.length, ids.length, 'every 202 is stored');
  const health = await svc.request('/api/v1/events/health', { headers: { authorization: '' } });
  t.equal(health.status, 200, 'health is UP');
});

void t.test('a key past its own bound gets 429 with Retry-After, naming the setting', async (t) => {
  const key = readers[0] as string;
  const both = await Promise.all([answer(ruleTest(key)), answer(ruleTest(key))]);
  const refused = both.find((a) => a.status === 429);
  t.ok(refused, `one of two at once is refused (${both.map((a) => a.status).join(', ')})`);
  t.equal(refused?.body.code, 'RATE_LIMITED');
  t.ok(Number(refused?.retryAfter) > 0, 'Retry-After');
  t.match(refused?.body.message, /RULE_TEST_MAX_PER_KEY=1/);
  t.ok(
    both.some((a) => a.status === 200),
    'the other runs',
  );
  // A non-PATTERN test replays nothing and takes no slot.
  const plain = await svc.request('/api/v1/rules/test', {
    method: 'POST',
    json: thresholdRule,
    headers: keyHeaders(key),
  });
  t.equal(plain.status, 200);
});
