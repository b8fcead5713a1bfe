// An incident's notifications end to end (issue 18 sections 1-3): a rule fires and a local webhook
// receiver gets FIRING with the explanation; the service restarts while the incident is open (it
// stays open, nothing is sent again); the condition clears and the receiver gets RESOLVED with the
// value at recovery, how long it lasted and the same alertId; the first RESOLVED attempt fails and
// the retry carries the same transitionId, in the body and as Idempotency-Key.
import t from 'tap';
import { contactPointsApi } from '../support/contact-points.ts';
import { rulesApi } from '../support/rules.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { requestsOf, startHttpReceiver } from '../notify/receivers.ts';
import { alertsOf, evaluationsPass, pumpErrors, waitUntil } from './alerts-helpers.ts';

const env = { RULE_EVALUATION_MS: '200' };

interface Sent {
  readonly alertId: number;
  readonly transition: string;
  readonly transitionId: string;
  readonly explanationText: string;
  readonly explanation: unknown;
  readonly valuesAtFire: Record<string, number>;
  readonly valuesAtResolve: Record<string, number> | null;
  readonly durationSeconds: number | null;
  readonly message: string;
}

void t.test(
  'FIRING, a restart, RESOLVED: one alertId, a transitionId per transition',
  async (t) => {
    let failNextResolved = true;
    const receiver = await startHttpReceiver(t, (n) => {
      const body = JSON.parse(receiver.received[n - 1]?.body ?? '{}') as Partial<Sent>;
      if (body.transition === 'RESOLVED' && failNextResolved) {
        failNextResolved = false;
        return { status: 503, body: 'try again' };
      }
      return { status: 200, body: 'ok' };
    });
    const sent = (): Sent[] => receiver.received.map((r) => JSON.parse(r.body) as Sent);

    const before = await startTestService(t, env);
    await contactPointsApi(before).create({
      name: 'hook',
      type: 'webhook',
      isDefault: true,
      settings: { url: receiver.url },
    });
    // Over 5 minutes: a minute boundary does not clear it while the service is down.
    const rule = await rulesApi(before).create({
      name: 'Checkout errors',
      ruleType: 'THRESHOLD',
      ruleConfig: {
        metric: 'errorRate',
        operator: 'GREATER_THAN',
        threshold: 20,
        windowMinutes: 5,
      },
      severity: 'HIGH',
      notificationChannels: ['webhook'],
    });
    const pump = pumpErrors(before);
    try {
      await waitUntil(
        sent,
        (s) => s.some((n) => n.transition === 'FIRING'),
        'the FIRING notification',
      );
    } finally {
      await pump.stop();
    }
    const firing = sent().find((n) => n.transition === 'FIRING');
    t.match(firing, {
      transition: 'FIRING',
      explanationText: 'errorRate over 5 min = 100 > 20',
      explanation: { metric: 'errorRate', operator: 'GREATER_THAN', value: 100, result: true },
      valuesAtFire: { errorRate: 100 },
      durationSeconds: null,
    });
    const alertId = firing?.alertId ?? 0;
    t.equal(firing?.transitionId, `alert-${alertId}-firing`);
    t.equal(receiver.received[0]?.headers['idempotency-key'], `alert-${alertId}-firing`);
    await before.service.stop();

    const after: TestService = await startTestService(t, env, { database: before.db });
    // The metrics start empty after a restart: the condition is seen true again before it may
    // clear (an empty window is no recovery).
    const pumpAfter = pumpErrors(after);
    try {
      await evaluationsPass(after, 3);
    } finally {
      await pumpAfter.stop();
    }
    t.match(await alertsOf(after, rule.id), [{ id: alertId, state: 'FIRING' }], 'still open');
    t.equal(receiver.received.length, 1, 'nothing sent again after the restart');

    // A reset zeroes the metrics: the condition is false at the next evaluation.
    const reset = await after.request('/api/v1/metrics/reset', { method: 'POST' });
    t.equal(reset.status, 200);
    await reset.arrayBuffer();
    const resolvedId = `alert-${alertId}-resolved`;
    await waitUntil(
      () => requestsOf(receiver, resolvedId).length,
      (n) => n >= 2,
      'the RESOLVED notification, retried once',
    );
    const [failed, resolved] = requestsOf(receiver, resolvedId).map(
      (r) => JSON.parse(r.body) as Sent,
    );
    t.same(failed, resolved, 'the retry sent the same notification');
    t.match(resolved, {
      alertId,
      transition: 'RESOLVED',
      transitionId: `alert-${alertId}-resolved`,
      valuesAtFire: { errorRate: 100 },
      valuesAtResolve: { errorRate: 0 },
      message:
        /^Rule 'Checkout errors' \(HIGH\) resolved after \d+(m \d+)?s? .*condition cleared\); at recovery errorRate = 0$/,
    });
    t.ok((resolved?.durationSeconds ?? -1) >= 0, 'how long it lasted');
    t.same(
      receiver.received.slice(1).map((r) => r.headers['idempotency-key']),
      [`alert-${alertId}-resolved`, `alert-${alertId}-resolved`],
    );
    const [stored] = await waitUntil(
      () => alertsOf(after, rule.id),
      (a) => (a[0]?.resolveDeliveries.length ?? 0) > 0,
      'the RESOLVED delivery result',
    );
    t.match(stored, {
      state: 'RESOLVED',
      deliveries: [{ channel: 'webhook', ok: true, attempts: 1 }],
      resolveDeliveries: [{ channel: 'webhook', ok: true, attempts: 2, status: 200 }],
    });
    await after.service.stop();
  },
);
