// Alone (no NATS_URL), the notification outbox closes the gap between a transition's commit and
// its delivery (docs/cluster-leader.md): a process that stored an incident and died before
// notifying it leaves the notification in the outbox; the next start sends it, with the same
// transitionId, stores its delivery results, and the outbox is empty after.
import t from 'tap';
import { recordTransitions } from '../../src/db/alerts-repository.ts';
import { saveContactPoint } from '../../src/db/contact-points-repository.ts';
import { firedAlert, storedRule } from '../support/alert-rows.ts';
import { createTestDatabase } from '../support/database.ts';
import { startRecordingReceiver } from '../support/recording-receiver.ts';
import { startTestService } from '../support/service.ts';
import { alertsOf, waitUntil } from './alerts-helpers.ts';

// The schema outlives the subtest's service (dropped at the file's end, after the service stopped).
const db = await createTestDatabase(t);

void t.test('a notification stored and not delivered is sent at the next start', async (t) => {
  const receiver = await startRecordingReceiver(t);
  const point = await saveContactPoint(db.sql, null, {
    name: 'hook',
    type: 'webhook',
    isDefault: true,
    settings: { url: receiver.url },
  });
  t.type(point, 'object', 'the contact point is stored');
  const rule = await storedRule(db.sql, 'left in the outbox', {
    notificationChannels: ['webhook'],
  });
  // What a process did before it died: the incident and its notification committed, not sent.
  const {
    stored: [stored],
  } = await recordTransitions(
    db.sql,
    [
      {
        kind: 'fired',
        alert: firedAlert(rule, Date.now(), { notificationChannels: ['webhook'] }),
      },
    ],
    { holder: 'alone:the-process-that-died', epoch: null },
  );
  if (stored?.kind !== 'fired') throw new Error('stored');
  const transitionId = `alert-${stored.alert.id}-firing`;

  const svc = await startTestService(t, {}, { database: db });
  await waitUntil(
    () => receiver.received.filter((r) => r.key === transitionId).length,
    (n) => n >= 1,
    'the notification to be sent',
  );
  t.same(
    receiver.received,
    [{ transition: 'FIRING', transitionId, key: transitionId }],
    'sent with its own transitionId as the Idempotency-Key',
  );
  const [alert] = await waitUntil(
    () => alertsOf(svc, rule.id),
    (alerts) => alerts[0]?.deliveries.length === 1,
    'its delivery results',
  );
  t.match(alert?.deliveries, [{ channel: 'webhook', ok: true }]);
  const [left] = await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM notification_outbox`;
  t.equal(left?.n, 0, 'the outbox is empty');
});
