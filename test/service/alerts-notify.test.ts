// Notifications end to end (DESIGN 6): a rule with the webhook channel, pointed at a node:http
// server of this test; the server receives the alert JSON and the stored alert's deliveries
// (GET /api/v1/alerts) end up saying ok.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { contactPointsApi } from '../support/contact-points.ts';
import { rulesApi } from '../support/rules.ts';
import { startTestService } from '../support/service.ts';
import { AlertSchema, alertsOf, pumpErrors, waitUntil, type Alert } from './alerts-helpers.ts';
import { check } from './helpers.ts';
import { firstDeliveredAlert, startFixedReceiver } from './notify-helpers.ts';
import { incidentTransitionId } from '../../src/domain/rules/alerts/notification.ts';

interface Hit {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

const hits: Hit[] = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    hits.push({
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    });
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
const hookPort = (server.address() as AddressInfo).port;

const svc = await startTestService(t, { RULE_EVALUATION_MS: '200' });
const rules = rulesApi(svc);

void t.test('a webhook receives the alert; its delivery is stored as ok', async (t) => {
  await contactPointsApi(svc).create({
    name: 'test-hook',
    type: 'webhook',
    isDefault: true,
    settings: { url: `http://127.0.0.1:${hookPort}/hook`, headers: { 'x-vigil-test': 'yes' } },
  });
  const rule = await rules.create({
    name: 'Errors to the webhook',
    ruleType: 'THRESHOLD',
    ruleConfig: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 20, windowMinutes: 1 },
    severity: 'MEDIUM',
    notificationChannels: ['webhook'],
  });
  const pump = pumpErrors(svc);
  let stored: unknown;
  try {
    // The results are stored once the receiver answered: its request has arrived by then.
    [stored] = await waitUntil(
      () => alertsOf(svc, rule.id),
      (alerts) => (alerts[0]?.deliveries.length ?? 0) > 0,
      'the delivery result on the stored alert',
    );
  } finally {
    await pump.stop();
  }
  const alert: Alert = check(AlertSchema, stored);
  // Counted by the notification's id: a RESOLVED or another rule's request is not this one.
  const firing = hits.filter(
    (h) => h.headers['idempotency-key'] === incidentTransitionId(alert.id, 'FIRING'),
  );
  t.equal(firing.length, 1, 'one alert, one request');
  const hit = firing[0] as Hit;
  t.equal(hit.method, 'POST');
  t.equal(hit.path, '/hook');
  t.match(hit.headers['content-type'], /^application\/json/);
  t.equal(hit.headers['x-vigil-test'], 'yes', 'the configured header');
  const sent: unknown = JSON.parse(hit.body);
  t.match(sent, {
    ruleId: rule.id,
    ruleName: 'Errors to the webhook',
    ruleVersion: 1,
    severity: 'MEDIUM',
    matchedConditions: ['errorRate 100 > 20'],
    currentValues: { errorRate: 100 },
    message: "Rule 'Errors to the webhook' (MEDIUM) triggered: errorRate 100 > 20",
  });
  t.match(sent, { id: alert.id, triggeredAt: alert.triggeredAt }, 'the stored alert was sent');
  t.match(alert.deliveries, [{ channel: 'webhook', ok: true, attempts: 1, status: 200 }]);
  t.equal(alert.deliveries.length, 1);
  t.equal(alert.deliveries[0]?.error, undefined, 'no error');
});

void t.test('a failing webhook is stored as a failed delivery', async (t) => {
  // A port with nothing listening: connection refused on every attempt.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const deadPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));

  const alert = await firstDeliveredAlert(svc, {
    name: 'Errors to nowhere',
    severity: 'LOW',
    notificationChannels: ['webhook:nowhere'],
    contactPoints: [
      { name: 'nowhere', type: 'webhook', settings: { url: `http://127.0.0.1:${deadPort}/hook` } },
    ],
  });
  t.match(alert.deliveries, [
    { channel: 'webhook:nowhere', ok: false, attempts: 3, error: 'connection refused' },
  ]);
  t.notMatch(alert.deliveries[0]?.error ?? '', /127\.0\.0\.1/, 'the error does not hold the URL');
});

void t.test("a 500 answer is stored as its status, none of the receiver's body", async (t) => {
  const receiver = await startFixedReceiver(t, 500, 'stack trace at db.internal.corp (10.9.8.7)');
  const alert = await firstDeliveredAlert(svc, {
    name: 'Errors to a failing receiver',
    severity: 'LOW',
    notificationChannels: ['webhook:failing'],
    contactPoints: [
      {
        name: 'failing',
        type: 'webhook',
        settings: { url: `http://127.0.0.1:${receiver.port}/hook` },
      },
    ],
  });
  t.match(alert.deliveries, [
    { channel: 'webhook:failing', ok: false, attempts: 3, status: 500, error: 'HTTP 500' },
  ]);
  t.equal(
    receiver.requestsFor(incidentTransitionId(alert.id, 'FIRING')),
    3,
    'each attempt of the FIRING notification reached the receiver (NOTIFY_ALLOW_PRIVATE=true)',
  );
});
