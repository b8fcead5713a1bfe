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
  DigestDue,
  DigestEntry,
  DigestRecord,
  Explanation,
  FiredAlert,
  StoredAlert,
  StoredTransition,
} from '../domain/rules/alerts/alert.ts';
import { DIGEST_LISTED, ruleOfTransition } from '../domain/rules/alerts/alert.ts';
import type { RecordedTransitions } from '../domain/rules/alerts/recorded-transitions.ts';
import { RULES_LEASE, type TransitionWriter } from '../domain/cluster/leader-fence.ts';
import { pendingNotifications } from '../domain/rules/alerts/pending-notification.ts';
import type { ActiveRule } from '../domain/rules/rule.ts';
import type { RuleSeverity } from '../domain/rules/rule-types.ts';
import type { Sql, Tx } from './connect.ts';
import { holdFence } from './leases-repository.ts';
import { deliveredFromOutbox, writeOutbox } from './notification-outbox-repository.ts';

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
  notification_channels: string[];
  notification_config: Record<string, unknown> | null;
  silence_id: string | null;
  held_by_budget: boolean;
  resolve_deliveries: DeliveryResult[];
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
  silenced: row.silence_id !== null,
  silenceId: row.silence_id === null ? null : Number(row.silence_id),
  heldByBudget: row.held_by_budget,
  matchedConditions: row.matched_conditions,
  currentValues: row.current_values,
  condition: row.condition_text,
  message: row.message,
  deliveries: row.deliveries,
  resolveDeliveries: row.resolve_deliveries,
});

/** The stored incident and the channels it fired with (its RESOLVED goes there too). */
const toStored = (row: AlertRow): StoredAlert => ({
  alert: toRecord(row),
  notify: {
    notificationChannels: row.notification_channels,
    notificationConfig: row.notification_config,
  },
});

const json = (sql: Sql | Tx, value: unknown) => sql.json(value as Parameters<Sql['json']>[0]);

/**
 * Stores the incidents of `fired`, FIRING, in one statement, each with the silence that covers it
 * (if any: it is then not notified, nor its RESOLVED); answers each one's stored row. The rules
 * are distinct (one round), so each row is found again by its rule.
 */
async function insertFired(
  tx: Tx,
  fired: readonly FiredAlert[],
  epoch: number | null,
): Promise<Map<number, StoredAlert>> {
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
    notification_channels: a.notificationChannels,
    notification_config: a.notificationConfig,
    held_by_budget: a.heldByBudget,
  }));
  const stored = await tx<AlertRow[]>`
    INSERT INTO alerts (rule_id, rule_name, rule_version, severity, triggered_at, state,
                        matched_conditions, current_values, condition_text, message,
                        explanation, explanation_text, notification_channels,
                        notification_config, held_by_budget, silence_id, leader_epoch)
    SELECT v.rule_id, v.rule_name, v.rule_version, v.severity, f.at, 'FIRING',
           v.matched_conditions, v.current_values, v.condition_text, v.message,
           v.explanation, v.explanation_text, v.notification_channels, v.notification_config,
           v.held_by_budget,
           -- The silence that covers it when it fires (the oldest, if several do).
           (SELECT s.id FROM silences s
            WHERE s.ends_at > f.at AND s.starts_at <= f.at
              AND (s.rule_id IS NULL OR s.rule_id = v.rule_id)
              AND (s.severity IS NULL OR s.severity = v.severity)
            ORDER BY s.id LIMIT 1),
           ${epoch}::int8
    FROM jsonb_to_recordset(${json(tx, rows)}) AS v(
           ord int4, rule_id int4, rule_name text, rule_version int4, severity text,
           triggered_at int8, matched_conditions jsonb, current_values jsonb, condition_text text,
           message text, explanation jsonb, explanation_text text, notification_channels jsonb,
           notification_config jsonb, held_by_budget boolean)
    CROSS JOIN LATERAL (
      SELECT 'epoch'::timestamptz + v.triggered_at * interval '1 millisecond' AS at) f
    ORDER BY v.ord
    RETURNING *`;
  return new Map(stored.map((row) => [row.rule_id, toStored(row)]));
}

/**
 * Resolves the open incidents (normally one; any stale one too) of each resolution's rule, in one
 * statement; answers them by rule. The reason: `condition cleared`, or for a rule that left
 * evaluation, what its status says now.
 */
async function resolveOpen(
  tx: Tx,
  resolutions: readonly AlertResolution[],
): Promise<Map<number, StoredAlert[]>> {
  const byRule = new Map<number, StoredAlert[]>();
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
    alerts.push(toStored(row));
    byRule.set(row.rule_id, alerts);
  }
  return byRule;
}

interface DigestRow {
  id: string;
  rule_id: number;
  rule_name: string;
  rule_version: number;
  severity: DigestRecord['severity'];
  max_alerts_per_hour: number;
  held_back: number;
  from_at: Date;
  until_at: Date;
  alerts: DigestEntry[];
}

/**
 * Writes the digest of `due`: the rule's held-back incidents fired until then and not yet in a
 * digest are counted, the first DIGEST_LISTED listed, and all of them marked as carried by it.
 * Null when none is left (a digest decided again after a restart finds them carried already).
 */
async function writeDigest(
  tx: Tx,
  due: DigestDue,
  epoch: number | null,
): Promise<DigestRecord | null> {
  const until = due.until;
  const [row] = await tx<DigestRow[]>`
    WITH held AS MATERIALIZED (
      SELECT a.id, a.triggered_at, a.state, a.explanation_text FROM alerts a
      WHERE a.rule_id = ${due.ruleId} AND a.held_by_budget AND a.digest_id IS NULL
        AND a.triggered_at <= 'epoch'::timestamptz + ${until}::int8 * interval '1 millisecond'
      ORDER BY a.triggered_at, a.id
      FOR UPDATE
    ), digest AS (
      INSERT INTO alert_digests (rule_id, rule_name, rule_version, severity, max_alerts_per_hour,
                                 held_back, from_at, until_at, alerts, leader_epoch)
      SELECT ${due.ruleId}, ${due.ruleName}, ${due.ruleVersion}, ${due.severity},
             ${due.maxAlertsPerHour}, count(*), min(h.triggered_at),
             'epoch'::timestamptz + ${until}::int8 * interval '1 millisecond',
             coalesce((SELECT jsonb_agg(jsonb_build_object(
                         'alertId', f.id, 'firedAt', f.fired_at, 'state', f.state,
                         'explanationText', f.explanation_text) ORDER BY f.triggered_at, f.id)
                       FROM (SELECT h2.*, to_char(h2.triggered_at AT TIME ZONE 'UTC',
                                                  'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS fired_at
                             FROM held h2 ORDER BY h2.triggered_at, h2.id
                             LIMIT ${DIGEST_LISTED}) f), '[]'::jsonb),
             ${epoch}::int8
      FROM held h
      HAVING count(*) > 0
      RETURNING *
    ), carried AS (
      UPDATE alerts a SET digest_id = (SELECT id FROM digest)
      WHERE a.id IN (SELECT id FROM held) AND EXISTS (SELECT 1 FROM digest)
    )
    SELECT * FROM digest`;
  if (row === undefined) return null;
  return {
    id: Number(row.id),
    ruleId: row.rule_id,
    ruleName: row.rule_name,
    ruleVersion: row.rule_version,
    severity: row.severity,
    maxAlertsPerHour: row.max_alerts_per_hour,
    heldBack: row.held_back,
    from: row.from_at.toISOString(),
    until: row.until_at.toISOString(),
    alerts: row.alerts.map((a) => ({ ...a, alertId: Number(a.alertId) })),
  };
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
    const ruleId = ruleOfTransition(transition);
    const round = seen.get(ruleId) ?? 0;
    seen.set(ruleId, round + 1);
    (out[round] ??= []).push(i);
  });
  return out;
}

/** A writer for callers that are alone and claim nothing (tools, tests). */
export const UNNAMED_WRITER: TransitionWriter = { holder: 'unnamed', epoch: null };

/**
 * Stores transitions in one transaction, each rule's in the order given (a resolution after the
 * firing of its incident closes that incident), counts the fired ones on their rules and writes
 * their notifications to the outbox, claimed by `writer`. Answers what was stored, in the order
 * given, and the notifications written to the outbox (which incidents a silence or the budget
 * keeps quiet is decided here, once; the front thread delivers these and decides nothing).
 * Normally one round: a multi-row INSERT of the fired ones, a multi-row UPDATE of the resolved
 * ones, one UPDATE of the rules' trigger counts and one INSERT into the outbox. A writer
 * with an epoch (cluster mode) is fenced: the transaction first checks the lease still names its
 * holder and epoch, else throws FencedError and stores nothing; what it stores carries the epoch.
 */
export async function recordTransitions(
  sql: Sql,
  transitions: readonly AlertTransition[],
  writer: TransitionWriter = UNNAMED_WRITER,
): Promise<RecordedTransitions> {
  if (transitions.length === 0) return { stored: [], outboxed: [] };
  const { epoch } = writer;
  return sql.begin(async (tx) => {
    if (epoch !== null) await holdFence(tx, RULES_LEASE, { ...writer, epoch });
    const stored: StoredTransition[] = [];
    const fired: FiredAlert[] = [];
    for (const round of rounds(transitions)) {
      const firing: FiredAlert[] = [];
      const resolving: AlertResolution[] = [];
      const digesting: DigestDue[] = [];
      for (const i of round) {
        const transition = transitions[i] as AlertTransition;
        if (transition.kind === 'fired') firing.push(transition.alert);
        else if (transition.kind === 'resolved') resolving.push(transition.resolution);
        else digesting.push(transition.digest);
      }
      // Distinct rules: the statements may go out together.
      const [inserted, resolved, digests] = await Promise.all([
        insertFired(tx, firing, epoch),
        resolveOpen(tx, resolving),
        Promise.all(digesting.map((due) => writeDigest(tx, due, epoch))),
      ]);
      const digestOf = new Map(digesting.map((due, k) => [due.ruleId, digests[k] ?? null]));
      for (const i of round) {
        const transition = transitions[i] as AlertTransition;
        const ruleId = ruleOfTransition(transition);
        if (transition.kind === 'resolved') {
          stored[i] = { kind: 'resolved', alerts: resolved.get(ruleId) ?? [] };
          continue;
        }
        if (transition.kind === 'digest') {
          const { notificationChannels, notificationConfig } = transition.digest;
          stored[i] = {
            kind: 'digest',
            digest: digestOf.get(ruleId) ?? null,
            notify: { notificationChannels, notificationConfig },
          };
          continue;
        }
        const alert = inserted.get(ruleId);
        if (alert === undefined) throw new Error(`the incident of rule ${ruleId} was not stored`);
        stored[i] = { kind: 'fired', ...alert };
      }
      fired.push(...firing);
    }
    await countTriggers(tx, fired);
    // Decided here, once: the front thread delivers exactly these (alert-sink.ts).
    const outboxed = await writeOutbox(tx, pendingNotifications(stored), writer);
    return { stored, outboxed };
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

/** Where the delivery results of each kind of notification are written: table and column. */
const DELIVERIES_OF = {
  FIRING: ['alerts', 'deliveries'],
  RESOLVED: ['alerts', 'resolve_deliveries'],
  DIGEST: ['alert_digests', 'deliveries'],
} as const satisfies Record<AlertDeliveries['transition'], readonly [string, string]>;

/**
 * Writes the delivery results of many notifications, one statement per kind: FIRING and RESOLVED
 * on their alerts, DIGEST on their digests; in the same transaction their outbox rows go (a
 * notification whose results are stored is never sent again).
 */
export async function recordDeliveries(
  sql: Sql,
  results: readonly AlertDeliveries[],
): Promise<void> {
  if (results.length === 0) return;
  await sql.begin(async (tx) => {
    await Promise.all([
      ...Object.entries(DELIVERIES_OF).map(async ([transition, [table, column]]) => {
        const rows = results
          .filter((r) => r.transition === transition)
          .map((r) => ({ id: r.id, deliveries: r.deliveries }));
        if (rows.length === 0) return;
        await tx`
          UPDATE ${tx(table)} t SET ${tx(column)} = v.deliveries
          FROM jsonb_to_recordset(${json(tx, rows)}) AS v(id int8, deliveries jsonb)
          WHERE t.id = v.id`;
      }),
      deliveredFromOutbox(tx, results),
    ]);
  });
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
  last_alert_at: string | null;
  held_since: string | null;
  firing_since: string | null;
}

/**
 * Every ACTIVE rule (or those of `ids` that are ACTIVE), with its notification settings (a fired
 * alert carries them to delivery); for throttling after a restart, the times of its incidents of
 * the last hour that the budget let through, of its latest incident however old (a suppression
 * window may be longer than the hour) and of its oldest held-back incident not yet in a digest;
 * and when its open incident fired: FIRING after a restart.
 */
export async function activeRulesForEvaluation(
  sql: Sql,
  now: number,
  ids?: readonly number[],
): Promise<ActiveRule[]> {
  const since = new Date(now - 3_600_000);
  const epochMs = (at: ReturnType<typeof sql>) =>
    sql`(SELECT floor(extract(epoch FROM (${at})) * 1000)::int8)`;
  const rows = await sql<ActiveRuleRow[]>`
    SELECT r.id, r.name, r.version, r.rule_type, r.rule_config, r.severity, r.priority,
           r.suppression_window_minutes, r.max_alerts_per_hour, r.notification_channels,
           r.notification_config,
           coalesce((SELECT json_agg(floor(extract(epoch FROM a.triggered_at) * 1000))
                     FROM alerts a
                     WHERE a.rule_id = r.id AND a.triggered_at > ${since}
                       AND NOT a.held_by_budget), '[]') AS recent,
           ${epochMs(sql`SELECT max(a.triggered_at) FROM alerts a WHERE a.rule_id = r.id`)}
             AS last_alert_at,
           ${epochMs(sql`SELECT min(a.triggered_at) FROM alerts a
                         WHERE a.rule_id = r.id AND a.held_by_budget AND a.digest_id IS NULL`)}
             AS held_since,
           ${epochMs(sql`SELECT max(a.triggered_at) FROM alerts a
                         WHERE a.rule_id = r.id AND a.state = 'FIRING'`)} AS firing_since
    FROM rules r
    WHERE r.status = 'ACTIVE' ${ids === undefined ? sql`` : sql`AND r.id = ANY(${ids}::int4[])`}
    ORDER BY r.id`;
  const ms = (value: string | null): number | null => (value === null ? null : Number(value));
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
    lastAlertAt: ms(r.last_alert_at),
    heldSince: ms(r.held_since),
    firingSince: ms(r.firing_since),
  }));
}
