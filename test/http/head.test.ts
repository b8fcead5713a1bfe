import t from 'tap';
import { startTestService } from '../support/service.ts';

t.test('HEAD answers like GET without a body, and unknown paths too', async (t) => {
  const { request } = await startTestService(t);
  const get = await request('/api/v1/events/test');
  const body = await get.text();
  const head = await request('/api/v1/events/test', { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(head.headers.get('content-length'), String(Buffer.byteLength(body)));
  t.equal(await head.text(), '');
  const missing = await request('/api/v1/nothing', { method: 'HEAD' });
  t.equal(missing.status, 404);
  t.equal(await missing.text(), '');
  const after = await request('/api/v1/events/test');
  t.equal(after.status, 200, 'the connection and the service are still fine');
});

t.test('a body nested deeper than any valid one is a 400, not a stack overflow', async (t) => {
  const { request } = await startTestService(t);
  const deep = '['.repeat(5000) + ']'.repeat(5000);
  const res = await request('/api/v1/rules', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: `{"name":"x","notificationChannels":${deep}}`,
  });
  t.equal(res.status, 400);
  t.match(await res.json(), { code: 'VALIDATION_FAILED', errors: { body: /nest/ } });
});
