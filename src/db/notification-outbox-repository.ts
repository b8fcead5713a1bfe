/**
 * @module The notification outbox (storage workers; docs/cluster-leader.md): each notification of
 * a stored transition is written in that transition's transaction, claimed by the process that
 * wrote it, and deleted once its delivery results are stored. Whatever a process committed and did
 * not get to deliver (it died, or lost the lease) is still there for another to claim and send,
 * with the same transitionId: a new leader (those of earlier epochs), or a single instance's next
 * start (those of other processes). A delivered notification's row is gone: never sent again.
 * Parameterised queries only.
 */
import { RULES_LEASE, type TransitionWriter } from '../domain/cluster/leader-fence.ts';
import type { AlertDeliveries } from '../domain/rules/alerts/alert.ts';
import {
  transitionIdOf,
  type PendingNotification,
} from '../domain/rules/alerts/pending-notification.ts';
import type { Sql, Tx } from './connect.ts';
import { holdFence } from './leases-repository.ts';

const json = (sql: Sql | Tx, value: unknown) => sql.json(value as Parameters<Sql['json']>[0]);

/**
 * Writes `pending`, claimed by `writer`, in the caller's transaction; answers those written (all
 * of them, unless one was there already), in the order given: exactly what is to be delivered.
 */
export async function writeOutbox(
  tx: Tx,
  pending: readonly PendingNotification[],
  writer: TransitionWriter,
): Promise<PendingNotification[]> {
  if (pending.length === 0) return [];
  const rows = pending.map(({ notification, notify }) => ({
    transition_id: notification.transitionId,
    notification,
    notify,
  }));
  // A transitionId is made of stored ids: a conflict would be the same notification again, which
  // its first writer delivers (or the outbox's next claimer): not answered here.
  const written = await tx<{ transition_id: string }[]>`
    INSERT INTO notification_outbox (transition_id, notification, notify, claimed_by, leader_epoch)
    SELECT v.transition_id, v.notification, v.notify, ${writer.holder}, ${writer.epoch}::int8
    FROM jsonb_to_recordset(${json(tx, rows)}) AS v(
           transition_id text, notification jsonb, notify jsonb)
    ON CONFLICT (transition_id) DO NOTHING
    RETURNING transition_id`;
  if (written.length === pending.length) return [...pending];
  const ids = new Set(written.map((row) => row.transition_id));
  return pending.filter(({ notification }) => ids.has(notification.transitionId));
}

/**
 * Claims for `writer` up to `limit` undelivered notifications that other processes left, oldest
 * first: in cluster mode those of earlier epochs, and only while the writer's fence holds
 * (FencedError otherwise); alone, those claimed by any other process.
 */
export async function claimOutbox(
  sql: Sql,
  writer: TransitionWriter,
  limit: number,
): Promise<PendingNotification[]> {
  return sql.begin(async (tx) => {
    const { epoch } = writer;
    if (epoch !== null) await holdFence(tx, RULES_LEASE, { ...writer, epoch });
    const left =
      epoch === null
        ? tx`claimed_by <> ${writer.holder}`
        : tx`(leader_epoch IS NULL OR leader_epoch < ${epoch})`;
    const rows = await tx<PendingNotification[]>`
      WITH claimed AS (
        UPDATE notification_outbox SET claimed_by = ${writer.holder}, leader_epoch = ${epoch}::int8
        WHERE transition_id IN (
          SELECT transition_id FROM notification_outbox WHERE ${left}
          ORDER BY created_at, transition_id LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
        RETURNING notification, notify, created_at, transition_id
      )
      SELECT notification, notify FROM claimed ORDER BY created_at, transition_id`;
    return [...rows];
  });
}

/** Deletes the outbox rows of the notifications whose delivery results these are. */
export async function deliveredFromOutbox(
  tx: Tx,
  results: readonly Omit<AlertDeliveries, 'deliveries'>[],
): Promise<void> {
  if (results.length === 0) return;
  const ids = results.map(transitionIdOf);
  await tx`DELETE FROM notification_outbox WHERE transition_id = ANY(${ids}::text[])`;
}
