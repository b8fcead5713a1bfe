/**
 * @module Alert SQL (storage workers): recording the transitions of many rules at once (the
 * incidents that fired with their rules' trigger counts, no read-modify-write, and the ones that
 * resolved), acknowledging, delivery results of many alerts at once, reading and listing, and
 * the ACTIVE rules with their notification settings, last hour of alerts and open incident for
 * the evaluator. Instants cross in JSON documents as epoch ms, exact to the millisecond.
 * Parameterised queries only.
 */
import type {
  Acknowledgement,
  AlertDeliveries,
  AlertFilter,
  AlertRecord,
  AlertResolution,
  AlertState,
  AlertTransition,
  DeliveryResult,
  Explanation,
  FiredAlert,
  StoredTransition,
} from '../domain/rules/alert.ts';
import type { ActiveRule } from '../domain/rules/rule.ts';
import type { RuleSeverity } from '../domain/rules/rule-types.ts';
import type { Sql, Tx } from './connect.ts';

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

const json = (sql: Sql | Tx, value: unknown) => sql.json(value as Parameters<Sql['json']>[0]);

/**
 * Stores the incidents of `fired`, FIRING, in one statement; answers each one's stored row. The
 * rules are distinct (one round), so each row is found again by its rule.
 */
async function insertFired(
  tx: Tx,
  fired: readonly FiredAlert[],
): Promise<Map<number, AlertRecord>> {
  if (fired.length === 0) return new Map();
  const rows = fired.map((a, ord) => ({
    ord,
    rule_id: a.ruleId,
    rule_name: a.ruleName,
    rule_version: a.ruleVersion,
    severity: a.severity,
    triggered_at: a.triggeredAt,
    matched_conditions: a.matchedConditions,
    current_values: a.currentValues,
    condition_text: a.condition,
    message: a.message,
    explanation: a.explanation,
    explanation_text: a.explanationText,
  }));
  const stored = await tx<AlertRow[]>`
    INSERT INTO alerts (rule_id, rule_name, rule_version, severity, triggered_at, state,
                        matched_conditions, current_values, condition_text, message,
                        explanation, explanation_text)
    SELECT v.rule_id, v.rule_name, v.rule_version, v.severity,
           'epoch'::timestamptz + v.triggered_at * interval '1 millisecond', 'FIRING',
           v.matched_conditions, v.current_values, v.condition_text, v.message,
           v.explanation, v.explanation_text
    FROM jsonb_to_recordset(${json(tx, rows)}) AS v(
           ord int4, rule_id int4, rule_name text, rule_version int4, severity text,
           triggered_at int8, matched_conditions jsonb, current_values jsonb, condition_text text,
           message text, explanation jsonb, explanation_text text)
    ORDER BY v.ord
    RETURNING *`;
  return new Map(stored.map((row) => [row.rule_id, toRecord(row)]));
}

/**
 * Resolves the open incidents (normally one; any stale one too) of each resolution's rule, in one
 * statement; answers them by rule. The reason: `condition cleared`, or for a rule that left
 * evaluation, what its status says now.
 */
async function resolveOpen(
  tx: Tx,
  resolutions: readonly AlertResolution[],
): Promise<Map<number, AlertRecord[]>> {
  const byRule = new Map<number, AlertRecord[]>();
  if (resolutions.length === 0) return byRule;
  const rows = resolutions.map((r) => ({
    rule_id: r.ruleId,
    resolved_at: r.resolvedAt,
    cleared: r.cause === 'condition-cleared',
    values_at_resolve: r.valuesAtResolve,
    resolve_explanation: r.resolveExplanation,
  }));
  const resolved = await tx<AlertRow[]>`
    UPDATE alerts a
    SET state = 'RESOLVED',
        resolved_at = greatest('epoch'::timestamptz + v.resolved_at * interval '1 millisecond',
                           a.triggered_at),
        values_at_resolve = v.values_at_resolve,
        resolve_explanation = v.resolve_explanation,
        resolved_reason = CASE WHEN v.cleared THEN 'condition cleared' ELSE coalesce(
          -- ACTIVE: paused (or archived) and enabled again before this was recorded.
          (SELECT CASE r.status WHEN 'ARCHIVED' THEN 'rule archived' ELSE 'rule paused' END
           FROM rules r WHERE r.id = a.rule_id),
          'rule deleted') END
    FROM jsonb_to_recordset(${json(tx, rows)}) AS v(
           rule_id int4, resolved_at int8, cleared boolean, values_at_resolve jsonb,
           resolve_explanation jsonb)
    WHERE a.rule_id = v.rule_id AND a.state = 'FIRING'
    RETURNING a.*`;
  for (const row of resolved.sort((x, y) => Number(x.id) - Number(y.id))) {
    const alerts = byRule.get(row.rule_id) ?? [];
    alerts.push(toRecord(row));
    byRule.set(row.rule_id, alerts);
  }
  return byRule;
}

/** Counts the fired incidents on their rules (count and latest time per rule), one statement. */
async function countTriggers(tx: Tx, fired: readonly FiredAlert[]): Promise<void> {
  if (fired.length === 0) return;
  const rows = fired.map((a) => ({ rule_id: a.ruleId, at: a.triggeredAt }));
  await tx`
    WITH fired AS (
      SELECT v.rule_id, count(*)::int4 AS n, max(v.at) AS at
      FROM jsonb_to_recordset(${json(tx, rows)}) AS v(rule_id int4, at int8)
      GROUP BY v.rule_id
    ), locked AS MATERIALIZED (
      -- In id order, as regenerateDrls locks them: two statements that lock many rules never
      -- deadlock. A row is updated only once the CTE has locked it and every lower id.
      SELECT r.id FROM rules r WHERE r.id IN (SELECT rule_id FROM fired) ORDER BY r.id FOR UPDATE
    )
    UPDATE rules r
    SET trigger_count = r.trigger_count + f.n,
        -- greatest: incidents of one rule may be stored out of order, the later one first.
        last_triggered_at = greatest(r.last_triggered_at,
                                     'epoch'::timestamptz + f.at * interval '1 millisecond')
    FROM fired f
    WHERE r.id = f.rule_id AND r.id IN (SELECT id FROM locked)`;
}

/**
 * Splits transitions into rounds in which each rule appears at most once, keeping each rule's
 * order: the k-th transition of a rule goes to round k. Within a round no two statements touch
 * the same rule, so a round's firings and resolutions may each be one statement.
 */
function rounds(transitions: readonly AlertTransition[]): number[][] {
  const seen = new Map<number, number>();
  const out: number[][] = [];
  transitions.forEach((transition, i) => {
    const ruleId = ruleOf(transition);
    const round = seen.get(ruleId) ?? 0;
    seen.set(ruleId, round + 1);
    (out[round] ??= []).push(i);
  });
  return out;
}

const ruleOf = (transition: AlertTransition): number =>
  transition.kind === 'fired' ? transition.alert.ruleId : transition.resolution.ruleId;

/**
 * Stores transitions in one transaction, each rule's in the order given (a resolution after the
 * firing of its incident closes that incident), and counts the fired ones on their rules. Answers
 * what was stored, in the order given. Normally one round: a multi-row INSERT of the fired ones, a
 * multi-row UPDATE of the resolved ones, and one UPDATE of the rules' trigger counts.
 */
export async function recordTransitions(
  sql: Sql,
  transitions: readonly AlertTransition[],
): Promise<StoredTransition[]> {
  if (transitions.length === 0) return [];
  return sql.begin(async (tx) => {
    const stored: StoredTransition[] = [];
    const fired: FiredAlert[] = [];
    for (const round of rounds(transitions)) {
      const firing: FiredAlert[] = [];
      const resolving: AlertResolution[] = [];
      for (const i of round) {
        const transition = transitions[i] as AlertTransition;
        if (transition.kind === 'fired') firing.push(transition.alert);
        else resolving.push(transition.resolution);
      }
      // Distinct rules: the two statements may go out together.
      const [inserted, resolved] = await Promise.all([
        insertFired(tx, firing),
        resolveOpen(tx, resolving),
      ]);
      for (const i of round) {
        const transition = transitions[i] as AlertTransition;
        const ruleId = ruleOf(transition);
        if (transition.kind === 'resolved') {
          stored[i] = { kind: 'resolved', alerts: resolved.get(ruleId) ?? [] };
          continue;
        }
        const alert = inserted.get(ruleId);
        if (alert === undefined) throw new Error(`the incident of rule ${ruleId} was not stored`);
        stored[i] = { kind: 'fired', alert };
      }
      fired.push(...firing);
    }
    await countTriggers(tx, fired);
    return stored;
  });
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

/** Writes the delivery results of many alerts, one statement. */
export async function recordDeliveries(
  sql: Sql,
  results: readonly AlertDeliveries[],
): Promise<void> {
  if (results.length === 0) return;
  const rows = results.map((r) => ({ id: r.alertId, deliveries: r.deliveries }));
  await sql`
    UPDATE alerts a SET deliveries = v.deliveries
    FROM jsonb_to_recordset(${json(sql, rows)}) AS v(id int8, deliveries jsonb)
    WHERE a.id = v.id`;
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
  notification_channels: ActiveRule['notificationChannels'];
  notification_config: ActiveRule['notificationConfig'];
  recent: number[];
  firing_since: string | null;
}

/**
 * Every ACTIVE rule (or those of `ids` that are ACTIVE), with its notification settings (a fired
 * alert carries them to delivery), the times of its alerts in the last
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
           r.suppression_window_minutes, r.max_alerts_per_hour, r.notification_channels,
           r.notification_config,
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
    notificationChannels: r.notification_channels,
    notificationConfig: r.notification_config,
    recentAlerts: r.recent.map(Number),
    firingSince: r.firing_since === null ? null : Number(r.firing_since),
  }));
}
