/**
 * @module Alert SQL (storage workers): recording an incident when it fires together with its
 * rule's trigger count (one statement, no read-modify-write), resolving and acknowledging it,
 * delivery results, reading and listing, and the ACTIVE rules with their last hour of alerts and
 * open incident for the evaluator. Parameterised queries only.
 */
import type {
  Acknowledgement,
  AlertFilter,
  AlertRecord,
  AlertResolution,
  AlertState,
  DeliveryResult,
  Explanation,
  FiredAlert,
} from '../domain/rules/alert.ts';
import type { ActiveRule } from '../domain/rules/rule.ts';
import type { RuleSeverity } from '../domain/rules/rule-types.ts';
import type { Sql } from './connect.ts';

interface AlertRow {
  id: string;
  rule_id: number;
  rule_name: string;
  rule_version: number;
  severity: RuleSeverity;
  triggered_at: Date;
  matched_conditions: string[];
  current_values: Record<string, number>;
  condition_text: string;
  message: string;
  deliveries: DeliveryResult[];
  state: AlertState;
  resolved_at: Date | null;
  resolved_reason: string | null;
  values_at_resolve: Record<string, number> | null;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  acknowledge_comment: string | null;
  explanation: Explanation | null;
  resolve_explanation: Explanation | null;
  explanation_text: string;
}

const instant = (at: Date | null): string | null => (at === null ? null : at.toISOString());

const toRecord = (row: AlertRow): AlertRecord => ({
  id: Number(row.id),
  ruleId: row.rule_id,
  ruleName: row.rule_name,
  ruleVersion: row.rule_version,
  severity: row.severity,
  state: row.state,
  firedAt: row.triggered_at.toISOString(),
  triggeredAt: row.triggered_at.toISOString(),
  resolvedAt: instant(row.resolved_at),
  resolvedReason: row.resolved_reason,
  valuesAtFire: row.current_values,
  valuesAtResolve: row.values_at_resolve,
  acknowledgedAt: instant(row.acknowledged_at),
  acknowledgedBy: row.acknowledged_by,
  acknowledgeComment: row.acknowledge_comment,
  explanation: row.explanation,
  resolveExplanation: row.resolve_explanation,
  explanationText: row.explanation_text,
  matchedConditions: row.matched_conditions,
  currentValues: row.current_values,
  condition: row.condition_text,
  message: row.message,
  deliveries: row.deliveries,
});

const json = (sql: Sql, value: unknown) => sql.json(value as Parameters<Sql['json']>[0]);

/** Stores the incident, FIRING, and counts the trigger on its rule in the same statement (atomic). */
export async function recordAlert(sql: Sql, alert: FiredAlert): Promise<AlertRecord> {
  const triggeredAt = new Date(alert.triggeredAt);
  const [row] = await sql<AlertRow[]>`
    WITH counted AS (
      -- greatest: alerts of one rule may be stored concurrently, the later one first.
      UPDATE rules SET trigger_count = trigger_count + 1,
                       last_triggered_at = greatest(last_triggered_at, ${triggeredAt})
      WHERE id = ${alert.ruleId}
    )
    INSERT INTO alerts (rule_id, rule_name, rule_version, severity, triggered_at, state,
                        matched_conditions, current_values, condition_text, message,
                        explanation, explanation_text)
    VALUES (${alert.ruleId}, ${alert.ruleName}, ${alert.ruleVersion}, ${alert.severity},
            ${triggeredAt}, 'FIRING', ${json(sql, alert.matchedConditions)},
            ${json(sql, alert.currentValues)}, ${alert.condition}, ${alert.message},
            ${alert.explanation === null ? null : json(sql, alert.explanation)},
            ${alert.explanationText})
    RETURNING *`;
  return toRecord(row as AlertRow);
}

/**
 * Resolves the open incident of the resolution's rule (normally one; any stale one too). The
 * reason: `condition cleared`, or for a rule that left evaluation, what its status says now.
 */
export async function resolveAlert(sql: Sql, resolution: AlertResolution): Promise<AlertRecord[]> {
  const at = new Date(resolution.resolvedAt);
  const cleared = resolution.cause === 'condition-cleared';
  const rows = await sql<AlertRow[]>`
    UPDATE alerts a
    SET state = 'RESOLVED',
        resolved_at = greatest(${at}, a.triggered_at),
        values_at_resolve = ${resolution.valuesAtResolve === null ? null : json(sql, resolution.valuesAtResolve)},
        resolve_explanation = ${resolution.resolveExplanation === null ? null : json(sql, resolution.resolveExplanation)},
        resolved_reason = CASE WHEN ${cleared}::boolean THEN 'condition cleared' ELSE coalesce(
          -- ACTIVE: paused (or archived) and enabled again before this was recorded.
          (SELECT CASE r.status WHEN 'ARCHIVED' THEN 'rule archived' ELSE 'rule paused' END
           FROM rules r WHERE r.id = a.rule_id),
          'rule deleted') END
    WHERE a.rule_id = ${resolution.ruleId} AND a.state = 'FIRING'
    RETURNING *`;
  return rows.map(toRecord);
}

/** Rules with an open incident that are not ACTIVE (paused, archived, deleted). */
export async function inactiveRulesFiring(sql: Sql): Promise<number[]> {
  const rows = await sql<{ rule_id: number }[]>`
    SELECT DISTINCT a.rule_id FROM alerts a
    WHERE a.state = 'FIRING'
      AND NOT EXISTS (SELECT 1 FROM rules r WHERE r.id = a.rule_id AND r.status = 'ACTIVE')
    ORDER BY a.rule_id`;
  return rows.map((r) => r.rule_id);
}

export async function getAlert(sql: Sql, id: number): Promise<AlertRecord | null> {
  const [row] = await sql<AlertRow[]>`SELECT * FROM alerts WHERE id = ${id}`;
  return row === undefined ? null : toRecord(row);
}

/**
 * Acknowledges an alert once: the first acknowledgement stays (`changed` false for a later one).
 * Null when there is no such alert.
 */
export async function acknowledgeAlert(
  sql: Sql,
  id: number,
  ack: Acknowledgement,
): Promise<{ alert: AlertRecord; changed: boolean } | null> {
  const [row] = await sql<(AlertRow & { changed: boolean })[]>`
    WITH acked AS (
      UPDATE alerts SET acknowledged_at = ${new Date(ack.at)}, acknowledged_by = ${ack.by},
                        acknowledge_comment = ${ack.comment}
      WHERE id = ${id} AND acknowledged_at IS NULL
      RETURNING *
    )
    SELECT *, true AS changed FROM acked
    UNION ALL
    SELECT *, false AS changed FROM alerts WHERE id = ${id} AND NOT EXISTS (SELECT 1 FROM acked)`;
  if (row === undefined) return null;
  // A concurrent acknowledgement committed after this statement's snapshot: read what it wrote.
  if (!row.changed && row.acknowledged_at === null) {
    const now = await getAlert(sql, id);
    return now === null ? null : { alert: now, changed: false };
  }
  return { alert: toRecord(row), changed: row.changed };
}

export async function recordDeliveries(
  sql: Sql,
  id: number,
  deliveries: readonly DeliveryResult[],
): Promise<void> {
  await sql`UPDATE alerts SET deliveries = ${json(sql, deliveries)} WHERE id = ${id}`;
}

export async function listAlerts(
  sql: Sql,
  filter: AlertFilter,
  page: number,
  size: number,
): Promise<{ rows: AlertRecord[]; total: number }> {
  const where = sql`
    WHERE true
      ${filter.ruleId === null ? sql`` : sql`AND rule_id = ${filter.ruleId}`}
      ${filter.severity === null ? sql`` : sql`AND severity = ${filter.severity}`}
      ${filter.state === null ? sql`` : sql`AND state = ${filter.state}`}
      ${
        // Exact epoch ms, not a Date: postgres.js would send year 0 (1 BC) as text PostgreSQL rejects.
        filter.since === null
          ? sql``
          : sql`AND triggered_at >= 'epoch'::timestamptz + ${filter.since}::int8 * interval '1 millisecond'`
      }
      ${
        filter.until === null
          ? sql``
          : sql`AND triggered_at < 'epoch'::timestamptz + ${filter.until}::int8 * interval '1 millisecond'`
      }`;
  return sql.begin('isolation level repeatable read read only', async (tx) => {
    const [count] = await tx<{ total: string }[]>`SELECT count(*) AS total FROM alerts ${where}`;
    const rows = await tx<AlertRow[]>`
      SELECT * FROM alerts ${where}
      ORDER BY triggered_at DESC, id DESC LIMIT ${size} OFFSET ${page * size}`;
    return { rows: rows.map(toRecord), total: Number(count?.total ?? 0) };
  });
}

interface ActiveRuleRow {
  id: number;
  name: string;
  version: number;
  rule_type: ActiveRule['ruleType'];
  rule_config: ActiveRule['ruleConfig'];
  severity: RuleSeverity;
  priority: number;
  suppression_window_minutes: number;
  max_alerts_per_hour: number;
  recent: number[];
  firing_since: string | null;
}

/**
 * Every ACTIVE rule (or those of `ids` that are ACTIVE) with the times of its alerts in the last
 * hour and of its latest alert, however old (a suppression window may be longer than the hour):
 * throttling after a restart; and when its open incident fired: FIRING after a restart.
 */
export async function activeRulesForEvaluation(
  sql: Sql,
  now: number,
  ids?: readonly number[],
): Promise<ActiveRule[]> {
  const since = new Date(now - 3_600_000);
  const rows = await sql<ActiveRuleRow[]>`
    SELECT r.id, r.name, r.version, r.rule_type, r.rule_config, r.severity, r.priority,
           r.suppression_window_minutes, r.max_alerts_per_hour,
           coalesce((SELECT json_agg(floor(extract(epoch FROM t.at) * 1000)) FROM (
                       SELECT a.triggered_at AS at FROM alerts a
                       WHERE a.rule_id = r.id AND a.triggered_at > ${since}
                       UNION ALL
                       SELECT max(a.triggered_at) FROM alerts a WHERE a.rule_id = r.id
                       HAVING max(a.triggered_at) <= ${since}
                     ) t), '[]') AS recent,
           (SELECT floor(extract(epoch FROM max(a.triggered_at)) * 1000)::int8 FROM alerts a
            WHERE a.rule_id = r.id AND a.state = 'FIRING') AS firing_since
    FROM rules r
    WHERE r.status = 'ACTIVE' ${ids === undefined ? sql`` : sql`AND r.id = ANY(${ids}::int4[])`}
    ORDER BY r.id`;
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    version: r.version,
    ruleType: r.rule_type,
    ruleConfig: r.rule_config,
    severity: r.severity,
    priority: r.priority,
    suppressionWindowMinutes: r.suppression_window_minutes,
    maxAlertsPerHour: r.max_alerts_per_hour,
    recentAlerts: r.recent.map(Number),
    firingSince: r.firing_since === null ? null : Number(r.firing_since),
  }));
}
