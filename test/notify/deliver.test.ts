// deliverAlert: every channel entry at once, each resolved to its contact point with the rule's
// settings (channel, recipients, subject, message template) merged over the contact point's, one
// result each, a failing channel never blocks the others, and an entry without a contact point
// fails with the reason issue 17 gives.
import t from 'tap';
import { deliverAlert } from '../../src/notify/deliver.ts';
import {
  alert,
  contactPoints,
  notifyOptions,
  startHttpReceiver,
  startSmtpReceiver,
  testLimiter,
  type Answer,
} from './receivers.ts';

const none = contactPoints();

t.test('all three channels delivered, results in channel order', async (t) => {
  const hook = await startHttpReceiver(t);
  const slack = await startHttpReceiver(t);
  const smtp = await startSmtpReceiver(t);
  const results = await deliverAlert(
    alert,
    { notificationChannels: ['email', 'slack', 'webhook:ops'], notificationConfig: null },
    notifyOptions({ smtpUrl: smtp.url }),
    testLimiter(),
    contactPoints(
      { type: 'email', settings: { to: 'ops@example.com' } },
      { type: 'slack', settings: { webhookUrl: slack.url } },
      { type: 'webhook', name: 'ops', settings: { url: hook.url } },
    ),
  );
  t.match(results, [
    { channel: 'email', ok: true, attempts: 1 },
    { channel: 'slack', ok: true, attempts: 1 },
    { channel: 'webhook:ops', ok: true, attempts: 1 },
  ]);
  t.equal(hook.received.length, 1);
  t.equal(slack.received.length, 1);
  t.equal(smtp.mails.length, 1);
});

t.test("the rule's settings merge over the contact point's", async (t) => {
  const slack = await startHttpReceiver(t);
  const smtp = await startSmtpReceiver(t);
  const results = await deliverAlert(
    alert,
    {
      notificationChannels: ['slack', 'email'],
      notificationConfig: {
        slack: { channel: '#alerts' },
        email: { to: 'extra@example.com', subject: 'Per rule', template: '{ruleName} #{alertId}' },
      },
    },
    notifyOptions({ smtpUrl: smtp.url }),
    testLimiter(),
    contactPoints(
      {
        type: 'slack',
        settings: { webhookUrl: slack.url, channel: '#general', template: '{severity}: {message}' },
      },
      { type: 'email', settings: { to: 'ops@example.com', subject: 'Default' } },
    ),
  );
  t.match(results, [
    { channel: 'slack', ok: true },
    { channel: 'email', ok: true },
  ]);
  const posted = JSON.stringify(JSON.parse(slack.received[0]?.body ?? '{}'));
  t.match(JSON.parse(posted), { channel: '#alerts' });
  t.match(
    posted,
    'CRITICAL: High error rate: errorRate 12.5 &gt; 5',
    "the contact point's template",
  );
  t.match(smtp.mails[0], { to: ['ops@example.com', 'extra@example.com'] });
  t.match(smtp.mails[0]?.raw, /Subject: Per rule/);
  t.match(smtp.mails[0]?.raw, /Message: High error rate #42/, "the rule's template");
});

t.test('one failing channel does not stop the others', async (t) => {
  const hook = await startHttpReceiver(t);
  const slack = await startHttpReceiver(t, () => ({ status: 400, body: 'no_service' }));
  const results = await deliverAlert(
    alert,
    { notificationChannels: ['slack', 'email', 'webhook', 'webhook'], notificationConfig: null },
    notifyOptions(),
    testLimiter(),
    contactPoints(
      { type: 'email', settings: { to: 'ops@example.com' } },
      { type: 'slack', settings: { webhookUrl: slack.url } },
      { type: 'webhook', settings: { url: hook.url } },
    ),
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
    { notificationChannels: ['webhook', 'slack'], notificationConfig: null },
    notifyOptions({ timeoutMs: 10_000, attempts: 1 }),
    testLimiter(),
    contactPoints(
      { type: 'webhook', settings: { url: hook.url } },
      { type: 'slack', settings: { webhookUrl: slack.url } },
    ),
  );
  t.match(results, [
    { channel: 'webhook', ok: true, attempts: 1 },
    { channel: 'slack', ok: true, attempts: 1 },
  ]);
  t.equal(arrived, 2);
});

t.test('no contact point: a failed result naming what is missing, nothing sent', async (t) => {
  const hook = await startHttpReceiver(t);
  const results = await deliverAlert(
    alert,
    {
      notificationChannels: ['slack', 'webhook:oncall', 'email:ops', 'webhook'],
      notificationConfig: { slack: { channel: '#alerts' } },
    },
    notifyOptions(),
    testLimiter(),
    // `ops` is a webhook contact point: `email:ops` does not name it.
    contactPoints({ type: 'webhook', name: 'ops', settings: { url: hook.url } }),
  );
  t.match(results, [
    { channel: 'slack', ok: false, attempts: 0, error: 'no contact point for slack' },
    {
      channel: 'webhook:oncall',
      ok: false,
      attempts: 0,
      error: 'no contact point for webhook named oncall',
    },
    { channel: 'email:ops', ok: false, attempts: 0, error: 'no contact point for email named ops' },
    { channel: 'webhook', ok: false, attempts: 0, error: 'no contact point for webhook' },
  ]);
  t.equal(hook.received.length, 0);
});

t.test('stored settings that are invalid give a failed result, nothing is sent', async (t) => {
  const hook = await startHttpReceiver(t);
  const results = await deliverAlert(
    alert,
    { notificationChannels: ['webhook', 'slack', 'sms'], notificationConfig: null },
    notifyOptions(),
    testLimiter(),
    contactPoints(
      { type: 'webhook', settings: { url: hook.url, retries: 5 } },
      { type: 'slack', settings: { channel: '#ops' } },
    ),
  );
  t.match(results, [
    {
      channel: 'webhook',
      ok: false,
      attempts: 0,
      error: 'invalid settings of contact point default-webhook: settings.retries',
    },
    {
      channel: 'slack',
      ok: false,
      attempts: 0,
      error: 'invalid settings of contact point default-slack: settings.webhookUrl',
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
      none,
    ),
    [],
  );
});
