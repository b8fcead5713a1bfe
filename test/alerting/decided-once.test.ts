// An alert decided once (issue 31): the storage operation that records transitions decides which
// notifications go out (a silence covering an incident, the budget holding it back), writes them
// to the outbox and answers them with their outbox ids; the front thread's sink delivers exactly
// those and decides nothing again. From evaluation to a delivery recorded: 3 thread crossings
// (actor -> front, then two storage operations).
import t from 'tap';
import { createAlertSink } from '../../src/alerting/alert-sink.ts';
import { recordTransitions } from '../../src/db/alerts-repository.ts';
import { createSilence } from '../../src/db/silences-repository.ts';
import type { RecordedTransitions } from '../../src/domain/rules/alerts/recorded-transitions.ts';
import type {
  AlertTransition,
  DeliveryResult,
  StoredAlert,
} from '../../src/domain/rules/alerts/alert.ts';
import { incidentNotification } from '../../src/domain/rules/alerts/notification.ts';
import type { PendingNotification } from '../../src/domain/rules/alerts/pending-notification.ts';
import { firedAlert, storedRule } from '../support/alert-rows.ts';
import { captureLog } from '../support/captured-log.ts';
import { createTestDatabase } from '../support/database.ts';
import { FakeStoragePool } from '../support/fake-storage-pool.ts';

const db = await createTestDatabase(t);
const { sql } = db;
const NOW = Date.now();
const CHANNELS = { notificationChannels: ['webhook'] };

const ok: DeliveryResult = {
  channel: 'webhook',
  ok: true,
  attempts: 1,
  at: '2026-11-28T00:00:00.000Z',
};

const firing = ({ alert, notify }: StoredAlert): PendingNotification => ({
  notification: incidentNotification(alert, 'FIRING'),
  notify,
});

/** Three rules that fire together: one plain, one under a silence, one held back by its budget. */
async function recorded(name: string): Promise<RecordedTransitions> {
  const plain = await storedRule(sql, `${name} plain`, CHANNELS);
  const silenced = await storedRule(sql, `${name} silenced`, CHANNELS);
  const held = await storedRule(sql, `${name} held`, CHANNELS);
  const silence = await createSilence(
    sql,
    {
      ruleId: silenced.id,
      severity: null,
      startsAt: NOW - 60_000,
      endsAt: NOW + 3_600_000,
      comment: 'maintenance',
      createdBy: 'test',
    },
    NOW,
    10,
  );
  if (typeof silence === 'string') throw new Error(silence);
  const transitions: AlertTransition[] = [
    { kind: 'fired', alert: firedAlert(plain, NOW, CHANNELS) },
    { kind: 'fired', alert: firedAlert(silenced, NOW, CHANNELS) },
    { kind: 'fired', alert: firedAlert(held, NOW, { ...CHANNELS, heldByBudget: true }) },
  ];
  return recordTransitions(sql, transitions);
}

const storedAlerts = (answer: RecordedTransitions): StoredAlert[] =>
  answer.stored.flatMap((s) => (s.kind === 'fired' ? [s] : []));

void t.test('storage answers exactly the notifications it wrote to the outbox', async (t) => {
  const answer = await recorded('storage');
  const [plain, silenced, held] = storedAlerts(answer);
  if (plain === undefined || silenced === undefined || held === undefined)
    throw new Error('three incidents stored');
  t.ok(silenced.alert.silenced, 'the silence was decided in the transaction');
  t.ok(held.alert.heldByBudget);
  const ids = answer.outboxed.map((p) => p.notification.transitionId);
  t.same(ids, [`alert-${plain.alert.id}-firing`], 'only the plain incident is notified');
  const rows = await sql<{ transition_id: string }[]>`
    SELECT transition_id FROM notification_outbox ORDER BY transition_id`;
  t.same(
    rows.map((r) => r.transition_id),
    ids,
    'the same ids as the outbox rows the transaction wrote',
  );
  t.same(answer.outboxed, [firing(plain)], 'each with what it says and where it goes');
});

void t.test('the sink delivers what storage outboxed, and decides nothing again', async (t) => {
  const real = await recorded('sink');
  const [plain, silenced] = storedAlerts(real);
  if (plain === undefined || silenced === undefined) throw new Error('incidents stored');
  // An answer no second decision would agree with: the silenced incident outboxed, the plain one
  // not. Were the sink to decide again from what was stored, it would deliver the plain one.
  const answer: RecordedTransitions = { stored: real.stored, outboxed: [firing(silenced)] };
  const pool = new FakeStoragePool({
    recordTransitions: () => ({ ok: true, value: answer }),
    recordDeliveries: () => ({ ok: true, value: true }),
  });
  const delivered: string[] = [];
  const published: string[] = [];
  const sink = createAlertSink({
    pool,
    publish: (json) => published.push(json),
    deliver: (notification) => {
      delivered.push(notification.transitionId);
      return Promise.resolve([ok]);
    },
    log: captureLog('test').log,
  });
  const accepted = await storedRule(sql, 'once accepted', CHANNELS);
  sink.accept({ kind: 'fired', alert: firedAlert(accepted, NOW, CHANNELS) });
  await sink.drain();
  t.same(delivered, [`alert-${silenced.alert.id}-firing`], 'exactly the outboxed notification');
  t.equal(published.length, 3, 'every stored incident is still published');
  t.same(
    pool.ops(),
    ['recordTransitions', 'recordDeliveries'],
    'two storage operations: record (answering the notifications), then the results',
  );
  t.same(
    pool.inputsOf('recordDeliveries'),
    [{ results: [{ transition: 'FIRING', id: silenced.alert.id, deliveries: [ok] }] }],
    'the results of that notification, by its id',
  );
});
