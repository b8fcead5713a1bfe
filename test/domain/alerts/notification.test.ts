// What a channel is told (issue 18 section 3): FIRING and RESOLVED of an incident with a
// transitionId made of stored ids only (the same on a retry and after a restart), a RESOLVED that
// says how long it lasted and the values at recovery, and a DIGEST that counts what the budget
// held back. Each rendered by Slack and e-mail.
import t from 'tap';
import type { AlertRecord, DigestRecord } from '../../../src/domain/rules/alerts/alert.ts';
import {
  digestNotification,
  durationText,
  incidentNotification,
} from '../../../src/domain/rules/alerts/notification.ts';
import { emailMessage } from '../../../src/notify/email.ts';
import { slackMessage } from '../../../src/notify/slack.ts';
import { alert as firing } from '../../notify/receivers.ts';

const { alertId, transition, transitionId, durationSeconds, ...payload } = firing;
const resolvedRecord: AlertRecord = {
  ...payload,
  state: 'RESOLVED',
  resolvedAt: '2026-11-22T19:34:12.123Z',
  resolvedReason: 'condition cleared',
  valuesAtResolve: { errorRate: 0.8, totalEvents: 120 },
  condition: 'errorRate > 5 [1 min]',
  deliveries: [],
  resolveDeliveries: [],
};

void t.test('FIRING and RESOLVED: the same alertId, a transitionId each', (t) => {
  const fired = incidentNotification({ ...resolvedRecord, state: 'FIRING' }, 'FIRING');
  t.match(fired, {
    alertId: 42,
    transition: 'FIRING',
    transitionId: 'alert-42-firing',
    durationSeconds: null,
  });
  t.equal(fired.message, firing.message, 'the firing message as the rule made it');
  t.notOk('condition' in fired || 'deliveries' in fired || 'resolveDeliveries' in fired);
  const resolved = incidentNotification(resolvedRecord, 'RESOLVED');
  t.match(resolved, {
    alertId: 42,
    transition: 'RESOLVED',
    transitionId: 'alert-42-resolved',
    durationSeconds: 252,
    valuesAtResolve: { errorRate: 0.8, totalEvents: 120 },
  });
  t.equal(
    resolved.message,
    "Rule 'High error rate' (CRITICAL) resolved after 4m 12s (condition cleared); at recovery errorRate = 0.8, totalEvents = 120",
  );
  t.same(incidentNotification(resolvedRecord, 'RESOLVED'), resolved, 'made again: the same');
  t.end();
});

void t.test('durations as people read them', (t) => {
  t.same([0, 45, 60, 252, 3600, 7500].map(durationText), [
    '0s',
    '45s',
    '1m',
    '4m 12s',
    '1h',
    '2h 5m',
  ]);
  t.end();
});

const digest: DigestRecord = {
  id: 9,
  ruleId: 7,
  ruleName: 'High error rate',
  ruleVersion: 3,
  severity: 'CRITICAL',
  maxAlertsPerHour: 2,
  heldBack: 3,
  from: '2026-11-22T19:40:00.000Z',
  until: '2026-11-22T20:30:00.000Z',
  alerts: [
    { alertId: 50, firedAt: '2026-11-22T19:40:00.000Z', state: 'RESOLVED', explanationText: 'a' },
    { alertId: 51, firedAt: '2026-11-22T19:50:00.000Z', state: 'FIRING', explanationText: '' },
  ],
};

void t.test('DIGEST: how many were held back, the first listed', (t) => {
  const n = digestNotification(digest);
  t.match(n, {
    alertId: null,
    digestId: 9,
    transition: 'DIGEST',
    transitionId: 'digest-9',
    heldBack: 3,
    alerts: digest.alerts,
  });
  t.equal(
    n.message,
    "Rule 'High error rate' (CRITICAL): 3 incidents held back by maxAlertsPerHour 2 from 2026-11-22T19:40:00.000Z to 2026-11-22T20:30:00.000Z (the first 2 listed)",
  );
  t.end();
});

void t.test('Slack and e-mail say which transition it is', (t) => {
  const resolved = incidentNotification(resolvedRecord, 'RESOLVED');
  const slack = slackMessage(resolved, { webhookUrl: 'https://hooks.slack.com/x' });
  t.equal(slack.text, '[RESOLVED] High error rate after 4m 12s');
  t.match(JSON.stringify(slack.blocks), /Values at recovery\*\\n• errorRate: 0.8/);
  const mail = emailMessage(resolved, { to: 'ops@example.com' }, 'vigil@example.com');
  t.equal(mail.subject, '[Vigil RESOLVED] High error rate');
  t.match(mail.text, /Lasted: 4m 12s/);
  t.match(mail.text, /Transition id: alert-42-resolved/);

  const d = digestNotification(digest);
  const slackDigest = slackMessage(d, { webhookUrl: 'https://hooks.slack.com/x' });
  t.equal(slackDigest.text, '[DIGEST] High error rate: 3 held back');
  t.match(JSON.stringify(slackDigest.blocks), /#50 fired 2026-11-22T19:40:00.000Z \(RESOLVED\): a/);
  const mailDigest = emailMessage(d, { to: 'ops@example.com' }, 'vigil@example.com');
  t.equal(mailDigest.subject, '[Vigil DIGEST] High error rate');
  t.match(mailDigest.text, /#51 fired 2026-11-22T19:50:00.000Z \(FIRING\)\n/);
  t.end();
});
