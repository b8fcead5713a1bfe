// The outbound policy end to end: a service with the default NOTIFY_ALLOW_PRIVATE=false, a rule
// whose webhook and Slack URLs point at a listener of this test on 127.0.0.1 (as an attacker's rule
// would point at the service itself or the metadata service). The listener receives nothing, and
// the stored deliveries say why with a fixed reason holding none of the listener's answer.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { rulesApi } from '../support/rules.ts';
import { startTestService } from '../support/service.ts';
import { alertsOf, pumpErrors, waitUntil, type Alert } from './alerts-helpers.ts';

const ANSWER = 'listener-secret: db.internal.corp 10.9.8.7';
let requests = 0;
const listener = createServer((_req, res) => {
  requests++;
  res.writeHead(500, { 'content-type': 'text/plain' });
  res.end(ANSWER);
});
await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
t.teardown(() => new Promise<void>((resolve) => listener.close(() => resolve())));
const port = (listener.address() as AddressInfo).port;

const svc = await startTestService(t, { RULE_EVALUATION_MS: '200', NOTIFY_ALLOW_PRIVATE: 'false' });
const rules = rulesApi(svc);

void t.test('a rule aimed at 127.0.0.1 reaches nothing; the reason is stored', async (t) => {
  const rule = await rules.create({
    name: 'Errors to the loopback',
    ruleType: 'THRESHOLD',
    ruleConfig: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 20, windowMinutes: 1 },
    severity: 'HIGH',
    notificationChannels: ['webhook', 'slack'],
    notificationConfig: {
      webhook: { url: `http://127.0.0.1:${port}/hook` },
      // Another spelling of 127.0.0.1: the URL parser's normal form is what is checked.
      slack: { webhookUrl: `http://2130706433:${port}/services/T0/B0/x` },
    },
  });
  const pump = pumpErrors(svc);
  let alerts: Alert[];
  try {
    alerts = await waitUntil(
      () => alertsOf(svc, rule.id),
      (stored) => (stored[0]?.deliveries.length ?? 0) > 0,
      'the delivery results on the stored alert',
    );
  } finally {
    await pump.stop();
  }
  const deliveries = alerts[0]?.deliveries;
  const refused = { ok: false, attempts: 0, error: 'address not allowed (private range)' };
  t.match(deliveries, [
    { channel: 'webhook', ...refused },
    { channel: 'slack', ...refused },
  ]);
  t.notMatch(JSON.stringify(deliveries), /listener-secret|internal|10\.9\.8\.7/);
  t.equal(requests, 0, 'the listener received nothing (the results are stored after the attempts)');
});
