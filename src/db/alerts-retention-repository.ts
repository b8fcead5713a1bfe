/**
 * @module ALERTS_RETENTION_DAYS (issue 23, storage workers): deletes resolved incidents older than
 * the retention, a bounded chunk at a time, with the digests (notifications of held-back incidents)
 * no remaining incident names. An open incident (FIRING) is never deleted, however old: its rule
 * still evaluates it and its RESOLVED notification is still to come.
 */
import type { Sql } from './connect.ts';

/**
 * Deletes at most `limit` RESOLVED alerts that fired and resolved before `before` (epoch ms), oldest
 * first (alerts_triggered index), and answers how many; then the digests of those alerts that no
 * alert names any more (one rule's incidents: alerts_rule_triggered narrows the check).
 */
export async function pruneResolvedAlerts(
  sql: Sql,
  before: number,
  limit: number,
): Promise<number> {
  const at = new Date(before);
  return sql.begin(async (tx) => {
    const gone = await tx<{ digest_id: string | null }[]>`
      DELETE FROM alerts WHERE id IN (
        SELECT id FROM alerts
        WHERE triggered_at < ${at} AND state = 'RESOLVED' AND resolved_at < ${at}
        ORDER BY triggered_at LIMIT ${limit}
      )
      RETURNING digest_id`;
    const digests = [...new Set(gone.flatMap((r) => (r.digest_id === null ? [] : [r.digest_id])))];
    if (digests.length > 0) {
      await tx`
        DELETE FROM alert_digests d
        WHERE d.id = ANY(${digests}::int8[])
          AND NOT EXISTS (SELECT 1 FROM alerts a WHERE a.rule_id = d.rule_id AND a.digest_id = d.id)`;
    }
    return gone.length;
  });
}
