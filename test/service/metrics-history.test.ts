// GET /api/v1/metrics/history against the real service: stored events show in the current
// minute's point, `minutes` is checked (400 naming it), and a read key may call it, an ingest key
// not. GET /api/v1/keys/self says what the caller's key grants, never the key.
import t from 'tap';
import { keyHeaders, TEST_ADMIN_KEY } from '../support/keys.ts';
import { startTestService } from '../support/service.ts';
import { waitForMetrics } from './helpers.ts';

const svc = await startTestService(t, { METRICS_REFRESH_MS: '50' });

interface Point {
  t: number;
  events: number;
  errors: number;
  eventsPerSecond: number;
  errorRate: number;
  p50: number;
  p95: number;
  p99: number;
}

async function createKey(scope: string): Promise<string> {
  const res = await svc.request('/api/v1/keys', { json: { name: `history-${scope}`, scope } });
  return ((await res.json()) as { key: string }).key;
}

t.test('stored events are in the latest point, with errors and latency', async (t) => {
  const batch = Array.from({ length: 8 }, (_, i) => ({
    eventType: 'history.test',
    source: 'test',
    severity: i < 2 ? 'ERROR' : 'INFO',
  }));
  const res = await svc.request('/api/v1/events/batch', { json: batch });
  t.equal(res.status, 202);
  await waitForMetrics(svc, (s) => s.summary.totalEvents === 8, '8 events counted');
  const history = await svc.request('/api/v1/metrics/history?minutes=5');
  t.equal(history.status, 200);
  const { points } = (await history.json()) as { points: Point[] };
  t.ok(points.length >= 1 && points.length <= 5);
  t.equal(
    points.reduce((sum, p) => sum + p.events, 0),
    8,
  );
  t.equal(
    points.reduce((sum, p) => sum + p.errors, 0),
    2,
  );
  for (const p of points) {
    t.equal(p.t % 60_000, 0, 'minute-aligned');
    t.ok(p.p50 <= p.p95 && p.p95 <= p.p99);
  }
  const withEvents = points.filter((p) => p.events > 0);
  t.ok(withEvents.every((p) => p.eventsPerSecond > 0 && p.errorRate >= 0 && p.errorRate <= 100));
});

t.test('minutes defaults to 60 and must be an integer from 1 to 1440', async (t) => {
  const res = await svc.request('/api/v1/metrics/history');
  t.equal(res.status, 200);
  t.ok(((await res.json()) as { points: Point[] }).points.length <= 60);
  for (const bad of ['0', '1441', 'abc', '1.5', '-3', '']) {
    const refused = await svc.request(`/api/v1/metrics/history?minutes=${bad}`);
    t.equal(refused.status, 400, `minutes=${bad}`);
    t.match(await refused.json(), {
      code: 'VALIDATION_FAILED',
      errors: { minutes: 'minutes must be an integer from 1 to 1440' },
    });
  }
});

t.test('a read key may read the history; an ingest key may not', async (t) => {
  const read = await createKey('read');
  const ingest = await createKey('ingest');
  const ok = await svc.request('/api/v1/metrics/history', { headers: keyHeaders(read) });
  t.equal(ok.status, 200);
  await ok.arrayBuffer();
  const refused = await svc.request('/api/v1/metrics/history', { headers: keyHeaders(ingest) });
  t.equal(refused.status, 403);
  await refused.arrayBuffer();
});

t.test(
  'GET /api/v1/keys/self: the scope and prefix of the calling key, never the key',
  async (t) => {
    const admin = await svc.request('/api/v1/keys/self');
    t.equal(admin.status, 200);
    const adminBody = (await admin.json()) as { scope: string; label: string };
    t.equal(adminBody.scope, 'admin');
    t.notMatch(JSON.stringify(adminBody), TEST_ADMIN_KEY);
    const read = await createKey('read');
    const self = await svc.request('/api/v1/keys/self', { headers: keyHeaders(read) });
    const body = (await self.json()) as { scope: string; label: string };
    t.same(Object.keys(body).sort(), ['label', 'scope']);
    t.equal(body.scope, 'read');
    t.ok(read.startsWith(body.label), 'the label is the key prefix');
    t.notMatch(JSON.stringify(body), read);
    const ingest = await createKey('ingest');
    const refused = await svc.request('/api/v1/keys/self', { headers: keyHeaders(ingest) });
    t.equal(refused.status, 403);
    await refused.arrayBuffer();
    const none = await svc.request('/api/v1/keys/self', { headers: { authorization: '' } });
    t.equal(none.status, 401);
    await none.arrayBuffer();
  },
);
