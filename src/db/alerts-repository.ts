/**
 * @module Alert SQL (storage workers): recording an alert together with its rule's trigger count
 * (one statement, no read-modify-write), delivery results, listing, and the ACTIVE rules with their
 * last hour of alerts for the evaluator. Parameterised queries only.
 */
import type {
  AlertFilter,
  AlertRecord,
  DeliveryResult,
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
}

const toRecord = (row: AlertRow): AlertRecord => ({
  id: Number(row.id),
  ruleId: row.rule_id,
  ruleName: row.rule_name,
  ruleVersion: row.rule_version,
  severity: row.severity,
  triggeredAt: row.triggered_at.toISOString(),
  matchedConditions: row.matched_conditions,
  currentValues: row.current_values,
  condition: row.condition_text,
  message: row.message,
  deliveries: row.deliveries,
});

const json = (sql: Sql, value: unknown) => sql.json(value as Parameters<Sql['json']>[0]);

/** Stores the alert and counts the trigger on its rule in the same statement (atomic). */
export async function recordAlert(sql: Sql, alert: FiredAlert): Promise<AlertRecord> {
  const triggeredAt = new Date(alert.triggeredAt);
  const [row] = await sql<AlertRow[]>`
    WITH counted AS (
      -- greatest: alerts of one rule may be stored concurrently, the later one first.
      UPDATE rules SET trigger_count = trigger_count + 1,
                       last_triggered_at = greatest(last_triggered_at, ${triggeredAt})
      WHERE id = ${alert.ruleId}
    )
    INSERT INTO alerts (rule_id, rule_name, rule_version, severity, triggered_at,
                        matched_conditions, current_values, condition_text, message)
    VALUES (${alert.ruleId}, ${alert.ruleName}, ${alert.ruleVersion}, ${alert.severity},
            ${triggeredAt}, ${json(sql, alert.matchedConditions)}, ${json(sql, alert.currentValues)},
            ${alert.condition}, ${alert.message})
    RETURNING *`;
  return toRecord(row as AlertRow);
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
      ${
        // Exact epoch ms, not a Date: postgres.js would send year 0 (1 BC) as text PostgreSQL rejects.
        filter.since === null
          ? sql``
          : sql`AND triggered_at >= 'epoch'::timestamptz + ${filter.since}::int8 * interval '1 millisecond'`
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
}

/**
 * Every ACTIVE rule (or those of `ids` that are ACTIVE) with the times of its alerts in the last
 * hour and of its latest alert, however old (a suppression window may be longer than the hour):
 * throttling after a restart.
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
                     ) t), '[]') AS recent
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
  }));
}
