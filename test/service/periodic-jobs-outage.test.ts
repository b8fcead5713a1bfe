// Issue 29: no timer, poll or reload can end the process. The database is taken away from a running
// service (a TCP proxy cuts it), each periodic job the test can fire is fired (the contact-point
// reload, the idempotency pruning, the retention job, the metrics broadcast) while the others run on
// their own timers (API key reload, count folds, rule sync); the service keeps answering, says DOWN,
// and once the database is back it says UP and stores what it acknowledges.
import t from 'tap';
import { captureLog } from '../support/captured-log.ts';
import { testDatabaseUrl } from '../support/database.ts';
import { startTestService } from '../support/service.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';
import { idOf } from '../support/events.ts';
import { waitUntil } from './alerts-helpers.ts';

interface Fired {
  fire: () => void;
}
/** Interval hooks that hand the test the callback instead of running it on a clock. */
const manual = (slot: Fired) => ({
  setInterval(tick: () => void) {
    slot.fire = tick;
    return 0;
  },
  clearInterval: () => {},
});

const jobs = {
  contactPoints: { fire: () => {} },
  idempotency: { fire: () => {} },
  retention: { fire: () => {} },
  broadcast: { fire: () => {} },
};
const proxy = await startTcpProxy(t, testDatabaseUrl());
const captured = captureLog('outage');
const svc = await startTestService(
  t,
  {},
  {
    databaseUrl: proxy.url,
    log: captured.log,
    hooks: {
      contactPointTimers: manual(jobs.contactPoints),
      idempotencyTimers: manual(jobs.idempotency),
      retentionTimers: manual(jobs.retention),
      broadcastTimers: manual(jobs.broadcast),
    },
  },
);

const EVENT = { eventType: 'outage.check', source: 'tests' };

const logged = (what: RegExp): Promise<unknown> =>
  waitUntil(
    () => captured.lines.some((line) => what.test(line)),
    (seen) => seen,
    `a log line matching ${what}`,
    30_000,
  );

const health = async (): Promise<string> => {
  const res = await svc.request('/api/v1/events/health', { headers: { authorization: '' } });
  return ((await res.json()) as { status: string }).status;
};

void t.test('every periodic job fails with the database down; the service answers', async (t) => {
  t.equal((await svc.request('/api/v1/events', { method: 'POST', json: EVENT })).status, 202);
  proxy.cut();
  for (const job of Object.values(jobs)) job.fire();
  await logged(/could not load the contact points/);
  await logged(/pruning idempotency keys failed/);
  await logged(/partition maintenance failed|retention run failed/);
  t.pass('each failure was logged, none thrown');
  // The public check says so within a probe (its cache lasts HEALTH_CACHE_MS).
  await waitUntil(health, (status) => status === 'DOWN', 'health DOWN', 30_000);
  const info = await svc.request('/api/v1/events/test', { headers: { authorization: '' } });
  t.equal(info.status, 200, 'the service still answers');
  // A second round while down: the jobs run again, and still nothing ends the process.
  for (const job of Object.values(jobs)) job.fire();

  proxy.restore();
  await waitUntil(health, (status) => status === 'UP', 'health UP again', 30_000);
  const after = await svc.request('/api/v1/events', { method: 'POST', json: EVENT });
  t.equal(after.status, 202, 'ingest works again');
  const { eventId } = (await after.json()) as { eventId: string };
  const rows = await svc.db.sql`SELECT id FROM events WHERE id = ${idOf(eventId)}`;
  t.equal(rows.length, 1, 'and what it acknowledges is stored');
  // The jobs succeed again once the database is back.
  const failures = captured.lines.filter((l) => /could not load the contact points/.test(l)).length;
  jobs.contactPoints.fire();
  await waitUntil(
    () => svc.request('/api/v1/events/health', { headers: { authorization: '' } }),
    (res) => res.status === 200,
    'still up',
  );
  t.equal(
    captured.lines.filter((l) => /could not load the contact points/.test(l)).length,
    failures,
    'no new reload failure',
  );
});
