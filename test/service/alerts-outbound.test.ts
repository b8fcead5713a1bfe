// The outbound policy end to end: a service with the default NOTIFY_ALLOW_PRIVATE=false, a rule
// whose webhook and Slack URLs point at a receiver of this test on 127.0.0.1 (as an attacker's rule
// would point at the service itself or the metadata service). The receiver gets nothing, and the
// stored deliveries say why with a fixed reason holding none of the receiver's answer.
import t from 'tap';
import { startTestService } from '../support/service.ts';
import { firstDeliveredAlert, startFixedReceiver } from './notify-helpers.ts';

const receiver = await startFixedReceiver(t, 500, 'receiver-secret: db.internal.corp 10.9.8.7');
const svc = await startTestService(t, { RULE_EVALUATION_MS: '200', NOTIFY_ALLOW_PRIVATE: 'false' });

void t.test('a rule aimed at 127.0.0.1 reaches nothing; the reason is stored', async (t) => {
  const alert = await firstDeliveredAlert(svc, {
    name: 'Errors to the loopback',
    severity: 'HIGH',
    notificationChannels: ['webhook', 'slack'],
    contactPoints: [
      {
        name: 'loopback-hook',
        type: 'webhook',
        isDefault: true,
        settings: { url: `http://127.0.0.1:${receiver.port}/hook` },
      },
      {
        name: 'loopback-slack',
        type: 'slack',
        isDefault: true,
        // Another spelling of 127.0.0.1: the URL parser's normal form is what is checked.
        settings: { webhookUrl: `http://2130706433:${receiver.port}/services/T0/B0/x` },
      },
    ],
  });
  const refused = { ok: false, attempts: 0, error: 'address not allowed (private range)' };
  t.match(alert.deliveries, [
    { channel: 'webhook', ...refused },
    { channel: 'slack', ...refused },
  ]);
  t.notMatch(JSON.stringify(alert.deliveries), /receiver-secret|internal|10\.9\.8\.7/);
  t.equal(receiver.requests(), 0, 'nothing was sent (the results are stored after the attempts)');
});
