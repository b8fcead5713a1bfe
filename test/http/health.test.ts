// GET /api/v1/events/health and /api/v1/events/test (spec 4.1, DESIGN 8) with the database up.
// The database-down case is health-down.test.ts.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { HealthSchema, ServiceInfoSchema } from '../../src/schemas/event-responses.ts';
import { readAs } from '../support/events.ts';
import { startTestService } from '../support/service.ts';

const svc = await startTestService(t);

void t.test('health is UP with the time in epoch milliseconds', async (t) => {
  const before = Date.now();
  const res = await svc.request('/api/v1/events/health');
  const after = Date.now();
  t.equal(res.status, 200);
  const body = await readAs(HealthSchema, res);
  t.same(Object.keys(body).sort(), ['status', 'timestamp']);
  t.equal(body.status, 'UP');
  t.match(body.timestamp, /^[0-9]+$/);
  const ms = Number(body.timestamp);
  t.ok(ms >= before && ms <= after, 'the time of the answer');
});

void t.test('the status endpoint names the service and its package version', async (t) => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  const res = await svc.request('/api/v1/events/test');
  t.equal(res.status, 200);
  t.same(await readAs(ServiceInfoSchema, res), {
    status: 'running',
    service: 'vigil',
    version: pkg.version,
    authentication: 'on',
  });
});
