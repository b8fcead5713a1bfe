// A rule that holds but must wait (pendingSeconds) is PENDING (issue 34): /topic/alerts publishes
// it (a real @stomp/stompjs client) with why it waits, nothing is stored for it, and GET
// /api/v1/rules/{id}/status tells the same reason. README's "/topic/alerts shows every step".
import t from 'tap';
import { startTestService } from '../support/service.ts';
import { connectStomp, until } from '../stomp/helpers.ts';
import { alertsOf, waitUntil } from './alerts-helpers.ts';

const svc = await startTestService(t, { RULE_EVALUATION_MS: '100' });
const messages: Record<string, unknown>[] = [];
const { client } = await connectStomp(`ws://127.0.0.1:${svc.service.port}/ws`);
t.teardown(() => client.deactivate());
await new Promise<void>((resolve) => {
  client.watchForReceipt('pending-subscribed', () => resolve());
  client.subscribe(
    '/topic/alerts',
    (message) => messages.push(JSON.parse(message.body) as Record<string, unknown>),
    { receipt: 'pending-subscribed' },
  );
});

void t.test('PENDING is published with its reason, and told by the rule status', async (t) => {
  const created = await svc.request('/api/v1/rules', {
    json: {
      name: 'Waits an hour',
      ruleType: 'THRESHOLD',
      severity: 'LOW',
      ruleConfig: {
        metric: 'eventsByType[pending.probe]',
        operator: 'GREATER_THAN',
        threshold: 0,
        pendingSeconds: 3600,
      },
    },
  });
  t.equal(created.status, 201);
  const { id } = (await created.json()) as { id: number };
  const posted = await svc.request('/api/v1/events', {
    json: { eventType: 'pending.probe', source: 'test', severity: 'INFO' },
  });
  t.equal(posted.status, 202);
  await posted.arrayBuffer();
  await until(
    () => messages.some((m) => m.ruleId === id && m.transition === 'PENDING'),
    'a PENDING message',
  );
  const pending = messages.find((m) => m.ruleId === id && m.transition === 'PENDING');
  t.equal(pending?.ruleName, 'Waits an hour');
  t.equal(pending?.suppressedUntil, null);
  t.match(pending?.reason, /^pending since \d{4}-\d{2}-\d{2}T/);
  t.match(pending?.pendingSince, /Z$/);
  const status = await waitUntil(
    async () =>
      (await svc.request(`/api/v1/rules/${id}/status`)).json() as Promise<Record<string, unknown>>,
    (s) => s.state === 'PENDING',
    'the rule PENDING',
  );
  t.equal(status.reason, pending?.reason, 'the status tells the same reason');
  t.same(await alertsOf(svc, id), [], 'nothing stored: no incident yet');
  // Published once per step, not on every evaluation.
  t.equal(messages.filter((m) => m.ruleId === id).length, 1);
});
