// The alert sink in cluster mode (docs/cluster-leader.md), on a scripted storage pool: a write
// refused by the fence is logged and dropped (not retried, nothing published or notified) and
// pauses the instance; an instance without the lease writes nothing; redelivery sends what the
// outbox holds, page by page, and writes the results (which take the rows out of the outbox).
import t from 'tap';
import { createAlertSink } from '../../src/alerting/alert-sink.ts';
import type { AlertTransition, DeliveryResult } from '../../src/domain/rules/alerts/alert.ts';
import type { Notification } from '../../src/domain/rules/alerts/notification.ts';
import type { PendingNotification } from '../../src/domain/rules/alerts/pending-notification.ts';
import { captureLog } from '../support/captured-log.ts';
import { FakeStoragePool } from '../support/fake-storage-pool.ts';
import { alert as firingNotification } from '../notify/receivers.ts';

const fired: AlertTransition = {
  kind: 'fired',
  alert: {
    ruleId: 7,
    ruleName: 'r',
    ruleVersion: 1,
    severity: 'HIGH',
    triggeredAt: 0,
    matchedConditions: ['x'],
    currentValues: {},
    condition: 'x',
    message: 'm',
    explanation: null,
    explanationText: '',
    notificationChannels: ['webhook'],
    notificationConfig: null,
    heldByBudget: false,
  },
};

const ok: DeliveryResult = {
  channel: 'webhook',
  ok: true,
  attempts: 1,
  at: '2026-11-27T00:00:00.000Z',
};

void t.test('a fenced write is logged, dropped, not retried, and pauses', async (t) => {
  const pool = new FakeStoragePool({
    recordTransitions: () => ({ ok: false, code: 'FENCED', message: 'the lease moved on' }),
  });
  const published: string[] = [];
  const delivered: Notification[] = [];
  let fencedCalls = 0;
  const { log, lines } = captureLog('test');
  const sink = createAlertSink({
    pool,
    publish: (json) => published.push(json),
    deliver: (notification) => {
      delivered.push(notification);
      return Promise.resolve([ok]);
    },
    log,
    writer: () => ({ holder: 'me', epoch: 4 }),
    onFenced: () => fencedCalls++,
  });
  sink.accept(fired);
  await sink.drain();
  t.same(pool.ops(), ['recordTransitions'], 'one write, not retried');
  t.match(
    pool.inputsOf('recordTransitions'),
    [{ writer: { holder: 'me', epoch: 4 } }],
    'written with the fence',
  );
  t.equal(fencedCalls, 1, 'the instance is told to pause');
  t.same(published, [], 'nothing published');
  t.same(delivered, [], 'nothing notified');
  t.ok(
    lines.some((line) => line.includes('the rule leader lease moved on')),
    'the refusal is logged',
  );
});

void t.test('an instance without the lease writes nothing', async (t) => {
  const pool = new FakeStoragePool();
  const sink = createAlertSink({
    pool,
    publish: () => {},
    deliver: () => Promise.resolve([ok]),
    log: captureLog('test').log,
    writer: () => 'not-leader',
  });
  sink.accept(fired);
  await sink.drain();
  await sink.redeliver();
  t.same(pool.calls, [], 'no write, no claim');
});

void t.test('redeliver sends what the outbox holds and writes the results', async (t) => {
  const pending = (id: number): PendingNotification => ({
    notification: { ...firingNotification, id, alertId: id, transitionId: `alert-${id}-firing` },
    notify: { notificationChannels: ['webhook'], notificationConfig: null },
  });
  const pages = [[pending(1), pending(2)], []];
  const pool = new FakeStoragePool({
    claimOutbox: () => ({ ok: true, value: pages.shift() ?? [] }),
    recordDeliveries: () => ({ ok: true, value: true }),
  });
  const delivered: string[] = [];
  const sink = createAlertSink({
    pool,
    publish: () => {},
    deliver: (notification) => {
      delivered.push(notification.transitionId);
      return Promise.resolve([ok]);
    },
    log: captureLog('test').log,
    writer: () => ({ holder: 'me', epoch: 2 }),
  });
  await sink.redeliver();
  t.same(delivered, ['alert-1-firing', 'alert-2-firing'], 'sent, with their own transitionIds');
  t.match(pool.calls[0], { op: 'claimOutbox', input: { writer: { holder: 'me', epoch: 2 } } });
  t.match(
    pool.inputsOf('recordDeliveries'),
    [
      {
        results: [
          { transition: 'FIRING', id: 1, deliveries: [ok] },
          { transition: 'FIRING', id: 2, deliveries: [ok] },
        ],
      },
    ],
    'their results written (taking them out of the outbox)',
  );
  t.equal(pool.inputsOf('claimOutbox').length, 1, 'a short page is the last');
});
