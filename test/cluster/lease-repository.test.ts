// The leader lease and the fenced writes against PostgreSQL (issue 23, docs/cluster-leader.md):
// take, renew at the same epoch, refused to another holder while valid, taken over at the next
// epoch once expired (time moved by rewriting expires_at: the statement reads only the database's
// clock), released; a transition written with an old epoch is refused and stores nothing; the
// outbox: written with the transition, claimed by the next epoch, gone once delivered; the rule
// change counter moves with the rules and not with their trigger counts; the metrics reset counter
// moves by one per reset and answers the value each reset made it.
import t from 'tap';
import { recordDeliveries, recordTransitions } from '../../src/db/alerts-repository.ts';
import { FencedError, readLease, releaseLease, takeLease } from '../../src/db/leases-repository.ts';
import { countMetricsReset, metricsResetSeq } from '../../src/db/metrics-resets-repository.ts';
import { claimOutbox } from '../../src/db/notification-outbox-repository.ts';
import { deleteRule, ruleChangeSeq, setRuleStatus } from '../../src/db/rules-repository.ts';
import { RULES_LEASE, type TransitionWriter } from '../../src/domain/cluster/leader-fence.ts';
import type { FiredAlert } from '../../src/domain/rules/alerts/alert.ts';
import type { RuleRecord } from '../../src/domain/rules/rule.ts';
import { firedAlert, storedRule } from '../support/alert-rows.ts';
import { createTestDatabase } from '../support/database.ts';

const db = await createTestDatabase(t);
const { sql } = db;
const TTL = 5000;

/** Moves lease `name` to `ms` from the database's now (negative: expired that long ago). */
const expireIn = async (ms: number, name = RULES_LEASE): Promise<void> => {
  await sql`
    UPDATE leases SET expires_at = now() + ${ms}::int4 * interval '1 millisecond'
    WHERE name = ${name}`;
};

const newRule = (name: string, channels: string[] = []): Promise<RuleRecord> =>
  storedRule(sql, name, { notificationChannels: channels });

const fired = (rule: RuleRecord, at = Date.now()): FiredAlert =>
  firedAlert(rule, at, { notificationChannels: rule.notificationChannels });

void t.test('take, renew, refuse, expire, take over at the next epoch, release', async (t) => {
  const name = 'lease-cycle';
  t.equal(await takeLease(sql, name, 'a', TTL), 1, 'the first holder gets epoch 1');
  t.equal(await takeLease(sql, name, 'a', TTL), 1, 'a renewal keeps the epoch');
  t.equal(await takeLease(sql, name, 'b', TTL), null, 'another holder is refused while it lasts');
  const held = await readLease(sql, name);
  t.match(held, { holder: 'a', epoch: 1 });
  t.ok((held?.expiresInMs ?? 0) > 0 && (held?.expiresInMs ?? 0) <= TTL, 'valid for the TTL');
  await expireIn(-1, name);
  t.equal(await takeLease(sql, name, 'b', TTL), 2, 'expired: taken over at the next epoch');
  t.equal(await takeLease(sql, name, 'a', TTL), null, 'the old holder cannot renew it back');
  await expireIn(-1, name);
  t.equal(await takeLease(sql, name, 'b', TTL), 2, 'expired but not taken: its holder goes on');
  await releaseLease(sql, name, 'a');
  t.equal(await takeLease(sql, name, 'c', TTL), null, 'a release by another holder does nothing');
  await releaseLease(sql, name, 'b');
  t.equal(await takeLease(sql, name, 'c', TTL), 3, 'released: the next holder takes it at once');
  t.equal(await takeLease(sql, name, 'b', TTL), null);
});

void t.test('a transition written with an old epoch is refused and stores nothing', async (t) => {
  const rule = await newRule('fenced');
  await expireIn(-1);
  const first = await takeLease(sql, RULES_LEASE, 'old-leader', TTL);
  if (first === null) throw new Error('the lease is free');
  const old: TransitionWriter = { holder: 'old-leader', epoch: first };
  const {
    stored: [stored],
  } = await recordTransitions(sql, [{ kind: 'fired', alert: fired(rule) }], old);
  if (stored?.kind !== 'fired') throw new Error('stored');
  const [row] = await sql<{ leader_epoch: string }[]>`
    SELECT leader_epoch FROM alerts WHERE id = ${stored.alert.id}`;
  t.equal(Number(row?.leader_epoch), first, 'the alert carries the epoch it was written with');

  // The old leader pauses; its lease expires; another instance takes it over.
  await expireIn(-1);
  const next = await takeLease(sql, RULES_LEASE, 'new-leader', TTL);
  t.equal(next, first + 1);
  const resolution = {
    ruleId: rule.id,
    resolvedAt: Date.now(),
    cause: 'condition-cleared' as const,
    valuesAtResolve: null,
    resolveExplanation: null,
  };
  await t.rejects(
    recordTransitions(sql, [{ kind: 'resolved', resolution }], old),
    FencedError,
    'the paused leader wakes up: its write is refused',
  );
  const [open] = await sql<
    { state: string }[]
  >`SELECT state FROM alerts WHERE id = ${stored.alert.id}`;
  t.equal(open?.state, 'FIRING', 'nothing of it was stored');
  await t.rejects(
    recordTransitions(sql, [{ kind: 'fired', alert: fired(rule) }], {
      ...old,
      holder: 'new-leader',
    }),
    FencedError,
    'the right holder with an old epoch is refused too',
  );
  const [count] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM alerts WHERE rule_id = ${rule.id}`;
  t.equal(count?.n, 1, 'no second incident');
  const [trigger] = await sql<{ n: number }[]>`
    SELECT trigger_count AS n FROM rules WHERE id = ${rule.id}`;
  t.equal(trigger?.n, 1, 'nor a second trigger count');
});

void t.test(
  'the outbox: written with the transition, claimed by the next epoch, gone once delivered',
  async (t) => {
    const withChannel = await newRule('outbox', ['webhook']);
    const silent = await newRule('outbox, no channel');
    await expireIn(-1);
    const epoch = await takeLease(sql, RULES_LEASE, 'leader-1', TTL);
    if (epoch === null) throw new Error('the lease is free');
    const leader1: TransitionWriter = { holder: 'leader-1', epoch };
    const { stored } = await recordTransitions(
      sql,
      [
        { kind: 'fired', alert: fired(withChannel) },
        { kind: 'fired', alert: fired(silent) },
      ],
      leader1,
    );
    const [incident] = stored;
    if (incident?.kind !== 'fired') throw new Error('stored');
    const transitionId = `alert-${incident.alert.id}-firing`;
    const rows = await sql<{ transition_id: string; claimed_by: string; leader_epoch: string }[]>`
    SELECT transition_id, claimed_by, leader_epoch FROM notification_outbox
    WHERE transition_id = ${transitionId}`;
    t.same(
      rows.map((r) => [r.transition_id, r.claimed_by, Number(r.leader_epoch)]),
      [[transitionId, 'leader-1', epoch]],
      'the notified incident is in the outbox, claimed by its writer (the one without a channel is not)',
    );
    t.same(await claimOutbox(sql, leader1, 10), [], 'its own writer does not claim it again');

    // Leader 1 dies before delivering; leader 2 takes over.
    await expireIn(-1);
    const epoch2 = await takeLease(sql, RULES_LEASE, 'leader-2', TTL);
    if (epoch2 === null) throw new Error('the lease is free');
    const leader2: TransitionWriter = { holder: 'leader-2', epoch: epoch2 };
    await t.rejects(claimOutbox(sql, leader1, 10), FencedError, 'the old leader cannot claim');
    const claimed = await claimOutbox(sql, leader2, 10);
    t.same(
      claimed.map((c) => [c.notification.transitionId, c.notification.transition, c.notify]),
      [[transitionId, 'FIRING', { notificationChannels: ['webhook'], notificationConfig: null }]],
      'the new leader claims what the old one left, with the same transitionId',
    );
    t.same(await claimOutbox(sql, leader2, 10), [], 'claimed once');

    await recordDeliveries(sql, [
      {
        transition: 'FIRING',
        id: incident.alert.id,
        deliveries: [
          { channel: 'webhook', ok: true, attempts: 1, status: 200, at: new Date().toISOString() },
        ],
      },
    ]);
    const [left] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM notification_outbox WHERE transition_id = ${transitionId}`;
    t.equal(left?.n, 0, 'delivered: gone from the outbox, never sent again');
    await expireIn(-1);
    const epoch3 = await takeLease(sql, RULES_LEASE, 'leader-3', TTL);
    if (epoch3 === null) throw new Error('the lease is free');
    t.same(
      await claimOutbox(sql, { holder: 'leader-3', epoch: epoch3 }, 10),
      [],
      'nothing to claim',
    );
  },
);

void t.test('alone: a restarted process claims what another process left', async (t) => {
  const rule = await newRule('alone', ['webhook']);
  const first: TransitionWriter = { holder: 'alone:first', epoch: null };
  const {
    stored: [stored],
  } = await recordTransitions(sql, [{ kind: 'fired', alert: fired(rule) }], first);
  if (stored?.kind !== 'fired') throw new Error('stored');
  t.same(await claimOutbox(sql, first, 10), [], 'not by its own writer');
  const claimed = await claimOutbox(sql, { holder: 'alone:second', epoch: null }, 10);
  t.same(
    claimed.map((c) => c.notification.transitionId),
    [`alert-${stored.alert.id}-firing`],
    'the next process claims it',
  );
});

void t.test('the rule change counter moves with what the evaluator reads', async (t) => {
  const before = await ruleChangeSeq(sql);
  const rule = await newRule('counted');
  const created = await ruleChangeSeq(sql);
  t.ok(created > before, 'a create');
  await setRuleStatus(sql, rule.id, 'PAUSED');
  const paused = await ruleChangeSeq(sql);
  t.ok(paused > created, 'a status change');
  await sql`UPDATE rules SET trigger_count = trigger_count + 1, last_triggered_at = now()
            WHERE id = ${rule.id}`;
  t.equal(await ruleChangeSeq(sql), paused, 'not a trigger count (every alert)');
  await deleteRule(sql, rule.id);
  t.ok((await ruleChangeSeq(sql)) > paused, 'a delete');
});

void t.test('the metrics reset counter moves by one per reset', async (t) => {
  const before = await metricsResetSeq(sql);
  t.equal(before, 0, 'a new schema starts at 0');
  const [first, second] = await Promise.all([countMetricsReset(sql), countMetricsReset(sql)]);
  t.same(
    [first, second].sort((a, b) => a - b),
    [1, 2],
    'two resets at once: each its own value',
  );
  t.equal(await metricsResetSeq(sql), 2, 'read back');
  await newRule('not-a-reset');
  t.equal(await metricsResetSeq(sql), 2, 'a rule change does not move it');
});
