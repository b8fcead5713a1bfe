// The notification budget end to end with an injected clock (issue 18 section 3): the live
// evaluator, ticking simulated seconds, decides; the alert sink stores every transition through a
// real storage worker pool in a real PostgreSQL and delivers to a real local webhook receiver.
// 5 incidents with maxAlertsPerHour 2: the first 2 are notified (FIRING, and RESOLVED when they
// clear), the other 3 are recorded but not notified, and once the hour of the first has passed
// one DIGEST says 3 and lists them. Nothing is dropped silently.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { pino } from 'pino';
import { startStoragePool } from '../../src/actors/storage-pool.ts';
import { createAlertSink } from '../../src/alerting/alert-sink.ts';
import type { WindowedMetrics } from '../../src/domain/metrics/windows/window-reads.ts';
import type {
  AlertResolution,
  AlertTransition,
  DigestDue,
} from '../../src/domain/rules/alerts/alert.ts';
import { RuleEngine } from '../../src/domain/rules/rule-engine.ts';
import { deliverAlert } from '../../src/notify/deliver.ts';
import { createTestDatabase } from '../support/database.ts';
import { activeRule, HOUR, leaf, SECOND } from '../domain/rules/engine-fixtures.ts';
import {
  contactPoints,
  notifyOptions,
  startHttpReceiver,
  testLimiter,
} from '../notify/receivers.ts';

const db = await createTestDatabase(t);
const pool = startStoragePool({
  threads: 1,
  maxQueuedTasks: 100,
  closeTimeoutMs: 5000,
  timeoutMs: 10_000,
  workerData: {
    databaseUrl: db.url,
    schema: db.schema,
    connections: 2,
    queryTimeoutMs: 10_000,
    logLevel: 'warn',
    metricsChannel: `unused-${randomUUID()}`,
  },
});
t.teardown(() => pool.close());
// Started before the clock-driven part: a worker still loading (tsx, a busy machine) would eat
// into the first write's task timeout, and its transitions would be lost as a failed write.
const notStarted = await pool.started(60_000);
if (notStarted !== null) throw new Error(`the storage worker did not start: ${notStarted}`);

interface Sent {
  readonly transition: string;
  readonly transitionId: string;
  readonly alertId: number | null;
  readonly heldBack?: number;
  readonly alerts?: readonly { readonly alertId: number }[];
}

void t.test('5 incidents, maxAlertsPerHour 2: 2 notified, then one DIGEST of 3', async (t) => {
  const receiver = await startHttpReceiver(t);
  const sink = createAlertSink({
    pool,
    publish: () => {},
    deliver: (notification, rule) =>
      deliverAlert(
        notification,
        rule,
        notifyOptions(),
        testLimiter(),
        contactPoints({ type: 'webhook', settings: { url: receiver.url } }),
      ),
    log: pino({ level: 'silent' }),
  });
  const engine = new RuleEngine();
  engine.setRules([
    activeRule(1, leaf('errorRate', 'GREATER_THAN', 20, 1), {
      maxAlertsPerHour: 2,
      notificationChannels: ['webhook'],
    }),
  ]);
  // The clock: two hours ago, so that what is stored lies in the past like real alerts.
  const T0 = Math.floor(Date.now() / 1000) * 1000 - 2 * HOUR;
  const tick = (now: number, errorRate: number): void => {
    const live: WindowedMetrics = {
      valuesOf: () => ({ get: () => errorRate }),
      hasKey: () => true,
    };
    const resolved: AlertResolution[] = [];
    const digests: DigestDue[] = [];
    const fired = engine.tick(live, now, resolved, digests);
    const transitions: AlertTransition[] = [
      ...resolved.map((resolution): AlertTransition => ({ kind: 'resolved', resolution })),
      ...digests.map((digest): AlertTransition => ({ kind: 'digest', digest })),
      ...fired.map((alert): AlertTransition => ({ kind: 'fired', alert })),
    ];
    for (const transition of transitions) sink.accept(transition);
  };
  // Five incidents, each lasting one second.
  for (let s = 0; s < 10; s++) tick(T0 + s * SECOND, s % 2 === 0 ? 100 : 0);
  await sink.drain();
  const alerts = await db.sql<{ id: string; held_by_budget: boolean; state: string }[]>`
    SELECT id, held_by_budget, state FROM alerts ORDER BY id`;
  t.same(
    alerts.map((a) => [a.held_by_budget, a.state]),
    [
      [false, 'RESOLVED'],
      [false, 'RESOLVED'],
      [true, 'RESOLVED'],
      [true, 'RESOLVED'],
      [true, 'RESOLVED'],
    ],
    'every incident recorded; the last 3 held back',
  );
  const ids = alerts.map((a) => Number(a.id));
  const sent = (): Sent[] => receiver.received.map((r) => JSON.parse(r.body) as Sent);
  t.same(
    sent()
      .map((n) => `${n.transition} ${n.alertId}`)
      .sort(),
    [`FIRING ${ids[0]}`, `FIRING ${ids[1]}`, `RESOLVED ${ids[0]}`, `RESOLVED ${ids[1]}`].sort(),
    'the first 2 incidents notified, fired and resolved; the other 3 not at all',
  );

  // Quiet until the hour of the first incident has passed: the budget has room, the digest goes.
  tick(T0 + HOUR - SECOND, 0);
  await sink.drain();
  t.equal(receiver.received.length, 4, 'no digest before the hour');
  tick(T0 + HOUR, 0);
  await sink.drain();
  const digests = sent().filter((n) => n.transition === 'DIGEST');
  t.equal(digests.length, 1, 'one digest');
  const [digest] = digests;
  t.match(digest, { alertId: null, heldBack: 3, transitionId: /^digest-\d+$/ });
  t.same(
    digest?.alerts?.map((a) => a.alertId),
    ids.slice(2),
    'it lists the held-back incidents',
  );
  t.equal(receiver.received.at(-1)?.headers['idempotency-key'], digest?.transitionId);
  const [stored] = await db.sql<{ held_back: number; deliveries: { ok: boolean }[] }[]>`
    SELECT held_back, deliveries FROM alert_digests`;
  t.equal(stored?.held_back, 3);
  t.match(stored?.deliveries, [{ channel: 'webhook', ok: true }], 'its delivery is recorded');
  const carried = await db.sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM alerts WHERE digest_id IS NOT NULL`;
  t.equal(carried[0]?.n, 3, 'the held ones are marked as carried');
});
