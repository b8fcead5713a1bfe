// Contact points end to end (issue 17): a rule with `{"slack": {"channel": "#alerts"}}` and a
// default Slack contact point posts to that contact point's URL with that channel (a real local
// receiver); the stored alert's deliveries hold no secret; a rule naming a contact point that does
// not exist stores the failed delivery "no contact point for ..."; a change through the API is
// used by the next alert, and one made by another instance once the periodic reload ran.
import t from 'tap';
import { RELOAD_MS } from '../../src/notify/contact-point-directory.ts';
import { contactPointsApi } from '../support/contact-points.ts';
import { startTestService } from '../support/service.ts';
import { requestsOf, startHttpReceiver } from '../notify/receivers.ts';
import { alertsOf } from './alerts-helpers.ts';
import { firstDeliveredAlert } from './notify-helpers.ts';

/** The periodic reload runs when the test fires it, as a change made through another instance. */
const reload = { periodMs: 0, fire: (): void => {} };
const svc = await startTestService(
  t,
  { RULE_EVALUATION_MS: '200' },
  {
    hooks: {
      contactPointTimers: {
        setInterval(tick, ms) {
          reload.periodMs = ms;
          reload.fire = tick;
          return 0;
        },
        clearInterval: () => {},
      },
    },
  },
);
const points = contactPointsApi(svc);
const secretPath = '/services/T0SECRET/B0SECRET/slacksecret';

void t.test('the default Slack contact point, with the rule’s channel', async (t) => {
  const receiver = await startHttpReceiver(t);
  await points.create({
    name: 'team-slack',
    type: 'slack',
    isDefault: true,
    settings: { webhookUrl: `http://127.0.0.1:${receiver.port}${secretPath}`, channel: '#general' },
  });
  const alert = await firstDeliveredAlert(svc, {
    name: 'Errors to Slack',
    severity: 'HIGH',
    notificationChannels: ['slack'],
    notificationConfig: { slack: { channel: '#alerts' } },
  });
  t.match(alert.deliveries, [{ channel: 'slack', ok: true, attempts: 1, status: 200 }]);
  // A Slack post carries no id of its FIRING: it is found by the text that names its rule.
  const posts = receiver.received.filter((r) =>
    (JSON.parse(r.body) as { text?: string }).text?.startsWith('[HIGH] Errors to Slack'),
  );
  t.equal(posts.length, 1, 'one alert, one post');
  const post = posts[0];
  t.equal(post?.method, 'POST');
  t.equal(post?.path, secretPath, "the contact point's URL");
  t.match(JSON.parse(post?.body ?? '{}'), { channel: '#alerts', text: /Errors to Slack/ });

  const reads = ['/api/v1/alerts', `/api/v1/rules/${alert.ruleId}/alerts`, '/api/v1/rules'];
  for (const path of reads) {
    const text = await (await svc.request(path)).text();
    t.notMatch(text, /SECRET|slacksecret/, `${path} holds no secret`);
  }
});

void t.test('a contact point that does not exist: a failed delivery saying so', async (t) => {
  const alert = await firstDeliveredAlert(svc, {
    name: 'Errors to a missing contact point',
    severity: 'LOW',
    notificationChannels: ['webhook:missing', 'email'],
  });
  t.match(alert.deliveries, [
    {
      channel: 'webhook:missing',
      ok: false,
      attempts: 0,
      error: 'no contact point for webhook named missing',
    },
    { channel: 'email', ok: false, attempts: 0, error: 'no contact point for email' },
  ]);
});

void t.test('a PUT through the API is used by the next alert', async (t) => {
  const before = await startHttpReceiver(t);
  const after = await startHttpReceiver(t);
  const point = await points.create({
    name: 'moving-hook',
    type: 'webhook',
    settings: { url: before.url, headers: { Authorization: 'Bearer hooksecret' } },
  });
  const first = await firstDeliveredAlert(svc, {
    name: 'Errors to a moving hook',
    severity: 'LOW',
    notificationChannels: ['webhook:moving-hook'],
  });
  t.match(first.deliveries, [{ channel: 'webhook:moving-hook', ok: true }]);
  t.equal(
    requestsOf(before, `alert-${first.id}-firing`)[0]?.headers.authorization,
    'Bearer hooksecret',
  );

  // Another origin (another port): the header was given for the old one, and must be given again.
  const refused = await points.send('PUT', `/${point.id}`, { settings: { url: after.url } });
  t.equal(refused.status, 400);
  t.match(await refused.json(), { errors: { 'settings.headers': /another origin/ } });
  await points.put(point.id, {
    settings: { url: after.url, headers: { Authorization: 'Bearer movedsecret' } },
  });
  const second = await firstDeliveredAlert(svc, {
    name: 'Errors to the moved hook',
    severity: 'LOW',
    notificationChannels: ['webhook:moving-hook'],
  });
  t.match(second.deliveries, [{ channel: 'webhook:moving-hook', ok: true }]);
  // The first rule may resolve meanwhile: its RESOLVED goes to the new URL as well.
  const firing = requestsOf(after, `alert-${second.id}-firing`);
  t.equal(firing.length, 1, 'the new URL got the alert');
  t.equal(firing[0]?.headers.authorization, 'Bearer movedsecret', 'the header given again');
  t.notOk(
    after.received.some((r) => r.headers.authorization === 'Bearer hooksecret'),
    'the old header never reached the new host',
  );
  t.notMatch(JSON.stringify(await alertsOf(svc, second.ruleId)), /hooksecret|movedsecret/);
});

void t.test(
  'a contact point written by another instance is used after the periodic reload',
  async (t) => {
    t.equal(reload.periodMs, RELOAD_MS, 'reloaded every 5 s');
    const receiver = await startHttpReceiver(t);
    // Another instance's write: straight into the table, this instance's API knows nothing of it.
    await svc.db.sql`
    INSERT INTO contact_points (name, type, settings)
    VALUES ('from-elsewhere', 'webhook', ${svc.db.sql.json({ url: receiver.url })})`;
    reload.fire();
    const alert = await firstDeliveredAlert(svc, {
      name: 'Errors to another instance’s hook',
      severity: 'LOW',
      notificationChannels: ['webhook:from-elsewhere'],
    });
    t.match(alert.deliveries, [{ channel: 'webhook:from-elsewhere', ok: true }]);
    t.equal(requestsOf(receiver, `alert-${alert.id}-firing`).length, 1);
  },
);
