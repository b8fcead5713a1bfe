// deliverAlert: every channel at once, one result each, a failing channel never blocks the others.
import t from 'tap';
import { deliverAlert } from '../../src/notify/deliver.ts';
import type { NotificationChannel } from '../../src/domain/rules/rule-types.ts';
import {
  alert,
  notifyOptions,
  startHttpReceiver,
  startSmtpReceiver,
  testLimiter,
  type Answer,
} from './receivers.ts';

t.test('all three channels delivered, results in channel order', async (t) => {
  const hook = await startHttpReceiver(t);
  const slack = await startHttpReceiver(t);
  const smtp = await startSmtpReceiver(t);
  const results = await deliverAlert(
    alert,
    {
      notificationChannels: ['email', 'slack', 'webhook'],
      notificationConfig: {
        email: { to: 'ops@example.com' },
        slack: { webhookUrl: slack.url },
        webhook: { url: hook.url },
      },
    },
    notifyOptions({ smtpUrl: smtp.url }),
    testLimiter(),
  );
  t.match(results, [
    { channel: 'email', ok: true, attempts: 1 },
    { channel: 'slack', ok: true, attempts: 1 },
    { channel: 'webhook', ok: true, attempts: 1 },
  ]);
  t.equal(hook.received.length, 1);
  t.equal(slack.received.length, 1);
  t.equal(smtp.mails.length, 1);
});

t.test('one failing channel does not stop the others', async (t) => {
  const hook = await startHttpReceiver(t);
  const slack = await startHttpReceiver(t, () => ({ status: 400, body: 'no_service' }));
  const results = await deliverAlert(
    alert,
    {
      notificationChannels: ['slack', 'email', 'webhook', 'webhook'],
      notificationConfig: {
        email: { to: 'ops@example.com' },
        slack: { webhookUrl: slack.url },
        webhook: { url: hook.url },
      },
    },
    notifyOptions(),
    testLimiter(),
  );
  t.match(results, [
    { channel: 'slack', ok: false, attempts: 1, status: 400, error: 'HTTP 400' },
    { channel: 'email', ok: false, attempts: 0, error: /SMTP_URL is not set/ },
    { channel: 'webhook', ok: true, attempts: 1 },
  ]);
  t.equal(results.length, 3, 'a channel listed twice is delivered once');
  t.equal(hook.received.length, 1);
});

t.test('channels run in parallel: each answers only once the other was called', async (t) => {
  // Each receiver holds its answer until both have a request. Channels sent one after the other
  // would leave the first waiting for a second request that never comes: it times out.
  let arrived = 0;
  let bothArrived = (): void => {};
  const both = new Promise<void>((resolve) => (bothArrived = resolve));
  const meet = async (): Promise<Answer> => {
    if (++arrived === 2) bothArrived();
    await both;
    return { status: 200, body: 'ok' };
  };
  const hook = await startHttpReceiver(t, meet);
  const slack = await startHttpReceiver(t, meet);
  const results = await deliverAlert(
    alert,
    {
      notificationChannels: ['webhook', 'slack'],
      notificationConfig: { webhook: { url: hook.url }, slack: { webhookUrl: slack.url } },
    },
    notifyOptions({ timeoutMs: 10_000, attempts: 1 }),
    testLimiter(),
  );
  t.match(results, [
    { channel: 'webhook', ok: true, attempts: 1 },
    { channel: 'slack', ok: true, attempts: 1 },
  ]);
  t.equal(arrived, 2);
});

t.test('a stored config that is invalid gives a failed result, nothing is sent', async (t) => {
  const hook = await startHttpReceiver(t);
  const results = await deliverAlert(
    alert,
    {
      notificationChannels: ['webhook', 'slack', 'sms' as NotificationChannel],
      notificationConfig: { webhook: { url: `${hook.url}`, retries: 5 } },
    },
    notifyOptions(),
    testLimiter(),
  );
  t.match(results, [
    {
      channel: 'webhook',
      ok: false,
      attempts: 0,
      error:
        "invalid notificationConfig: Unknown key 'retries' in notificationConfig.webhook (allowed: url, headers, timeoutMs)",
    },
    {
      channel: 'slack',
      ok: false,
      attempts: 0,
      error:
        'invalid notificationConfig: notificationConfig.slack.webhookUrl is required when notificationChannels includes slack',
    },
    { channel: 'sms', ok: false, attempts: 0, error: "unknown channel 'sms'" },
  ]);
  t.equal(hook.received.length, 0);
  t.same(
    await deliverAlert(
      alert,
      { notificationChannels: [], notificationConfig: null },
      notifyOptions(),
      testLimiter(),
    ),
    [],
  );
  t.match(
    await deliverAlert(
      alert,
      { notificationChannels: ['email'], notificationConfig: 'x' },
      notifyOptions(),
      testLimiter(),
    ),
    [
      {
        channel: 'email',
        ok: false,
        error: 'invalid notificationConfig: notificationConfig must be an object',
      },
    ],
  );
});
