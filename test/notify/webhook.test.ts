// Webhook: POSTs the notification as JSON, with the rule's headers, an Idempotency-Key that is the
// transitionId on every attempt, and its own timeout.
import t from 'tap';
import { sendWebhook } from '../../src/notify/webhook.ts';
import { alert, notifyOptions, startHttpReceiver } from './receivers.ts';

t.test('POSTs the alert JSON with the configured headers', async (t) => {
  const receiver = await startHttpReceiver(t, () => ({ status: 204 }));
  const result = await sendWebhook(
    alert,
    {
      url: `${receiver.url}?team=ops`,
      headers: { Authorization: 'Bearer s3cret', 'X-Team': 'ops' },
    },
    notifyOptions(),
  );
  t.match(result, { channel: 'webhook', ok: true, attempts: 1, status: 204 });
  t.match(result.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.equal(receiver.received.length, 1);
  const [request] = receiver.received;
  t.equal(request?.method, 'POST');
  t.equal(request?.path, '/hook?team=ops');
  t.equal(request?.headers['content-type'], 'application/json');
  t.equal(request?.headers['authorization'], 'Bearer s3cret');
  t.equal(request?.headers['x-team'], 'ops');
  t.match(request?.headers['user-agent'], /^vigil\/\d+\.\d+\.\d+$/);
  t.same(JSON.parse(request?.body ?? ''), alert);
});

t.test('the rule may set User-Agent but never Content-Type', async (t) => {
  const receiver = await startHttpReceiver(t);
  await sendWebhook(
    alert,
    { url: receiver.url, headers: { 'User-Agent': 'custom', 'content-type': 'text/plain' } },
    notifyOptions(),
  );
  t.equal(receiver.received[0]?.headers['user-agent'], 'custom');
  t.equal(receiver.received[0]?.headers['content-type'], 'application/json');
});

t.test("the webhook's timeoutMs overrides NOTIFY_TIMEOUT_MS", async (t) => {
  const receiver = await startHttpReceiver(t, () => 'hang');
  const result = await sendWebhook(
    alert,
    { url: receiver.url, timeoutMs: 100 },
    notifyOptions({ timeoutMs: 30_000, attempts: 1 }),
  );
  t.match(result, { ok: false, attempts: 1, error: 'timed out after 100 ms' });
});

t.test('every attempt carries the transitionId as Idempotency-Key', async (t) => {
  const receiver = await startHttpReceiver(t, (n) =>
    n < 3 ? { status: 503, body: 'busy' } : { status: 200, body: 'ok' },
  );
  const result = await sendWebhook(
    alert,
    // A configured header of the same name does not replace it.
    { url: receiver.url, headers: { 'Idempotency-Key': 'mine' } },
    notifyOptions(),
  );
  t.match(result, { ok: true, attempts: 3 });
  t.same(
    receiver.received.map((r) => r.headers['idempotency-key']),
    ['alert-42-firing', 'alert-42-firing', 'alert-42-firing'],
  );
  t.same(
    receiver.received.map((r) => (JSON.parse(r.body) as { transitionId: string }).transitionId),
    ['alert-42-firing', 'alert-42-firing', 'alert-42-firing'],
    'and in the body',
  );
});
