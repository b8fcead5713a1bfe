/**
 * @module Rule SQL (storage workers). The DRL is generated here, where the rule's id is known,
 * from the final fields, so it always matches what is stored. Parameterised queries only.
 */
import { drlHash, generateDrl } from '../domain/rules/drl.ts';
import { RULE_TYPES, type RuleStatus } from '../domain/rules/rule-types.ts';
import type { RuleFields, RuleFilter, RuleRecord, RuleStatistics } from '../domain/rules/rule.ts';
import type { Sql, Tx } from './connect.ts';

interface RuleRow {
  id: number;
  name: string;
  description: string | null;
  rule_type: RuleRecord['ruleType'];
  status: RuleStatus;
  rule_config: RuleRecord['ruleConfig'];
  generated_drl: string;
  drl_hash: string;
  severity: RuleRecord['severity'];
  priority: number;
  notification_channels: RuleRecord['notificationChannels'];
  notification_config: RuleRecord['notificationConfig'];
  suppression_window_minutes: number;
  max_alerts_per_hour: number;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  last_triggered_at: Date | null;
  trigger_count: number;
  version: number;
}

/** DESIGN 6: UTC local date-time with milliseconds, no zone. */
export const localDateTime = (date: Date): string => date.toISOString().slice(0, -1);

const toRecord = (row: RuleRow): RuleRecord => ({
  id: row.id,
  name: row.name,
  description: row.description,
  ruleType: row.rule_type,
  status: row.status,
  ruleConfig: row.rule_config,
  generatedDrl: row.generated_drl,
  drlHash: row.drl_hash,
  severity: row.severity,
  priority: row.priority,
  notificationChannels: row.notification_channels,
  notificationConfig: row.notification_config,
  suppressionWindowMinutes: row.suppression_window_minutes,
  maxAlertsPerHour: row.max_alerts_per_hour,
  createdBy: row.created_by,
  createdAt: localDateTime(row.created_at),
  updatedAt: localDateTime(row.updated_at),
  lastTriggeredAt: row.last_triggered_at === null ? null : localDateTime(row.last_triggered_at),
  triggerCount: row.trigger_count,
  version: row.version,
});

const drlOf = (id: number, rule: RuleFields): { drl: string; hash: string } => {
  const drl = generateDrl({
    id,
    name: rule.name,
    ruleType: rule.ruleType,
    severity: rule.severity,
    priority: rule.priority,
    config: rule.ruleConfig,
  });
  return { drl, hash: drlHash(drl) };
};

const isNameTaken = (error: unknown): boolean =>
  (error as { code?: string; constraint_name?: string }).code === '23505' &&
  (error as { constraint_name?: string }).constraint_name === 'rules_name_key';

const json = (sql: Sql | Tx, value: unknown) => sql.json(value as Parameters<Sql['json']>[0]);

/**
 * Class of the advisory lock that serialises rule creations (the two-integer key space, apart from
 * the migrations' single-key lock); the object is the rules table's oid, so one lock per schema.
 */
const CREATE_LOCK_CLASS = 0x76676c72; // 'vglr'

/**
 * Inserts the rule unless `maxRules` rules exist (every status: an archived rule is still stored,
 * listed and may be enabled again). The count and the insert run under one transaction-scoped
 * advisory lock, so concurrent creates cannot both see room for the last rule.
 */
export async function createRule(
  sql: Sql,
  rule: RuleFields,
  maxRules: number,
): Promise<RuleRecord | 'NAME_TAKEN' | 'RULE_LIMIT'> {
  try {
    return await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${CREATE_LOCK_CLASS}, 'rules'::regclass::oid::int)`;
      const [stored] = await tx<{ n: number }[]>`SELECT count(*)::int AS n FROM rules`;
      if ((stored as { n: number }).n >= maxRules) return 'RULE_LIMIT' as const;
      const [next] = await tx<{ id: number }[]>`SELECT nextval('rules_id_seq')::int AS id`;
      const id = (next as { id: number }).id;
      const { drl, hash } = drlOf(id, rule);
      const [row] = await tx<RuleRow[]>`
        INSERT INTO rules (id, name, description, rule_type, status, rule_config, generated_drl,
                           drl_hash, severity, priority, notification_channels, notification_config,
                           suppression_window_minutes, max_alerts_per_hour, created_by)
        VALUES (${id}, ${rule.name}, ${rule.description}, ${rule.ruleType}, 'ACTIVE',
                ${json(tx, rule.ruleConfig)}, ${drl}, ${hash}, ${rule.severity}, ${rule.priority},
                ${json(tx, rule.notificationChannels)},
                ${rule.notificationConfig === null ? null : json(tx, rule.notificationConfig)},
                ${rule.suppressionWindowMinutes}, ${rule.maxAlertsPerHour}, ${rule.createdBy})
        RETURNING *`;
      return toRecord(row as RuleRow);
    });
  } catch (error) {
    if (isNameTaken(error)) return 'NAME_TAKEN';
    throw error;
  }
}

export async function getRule(sql: Sql, id: number): Promise<RuleRecord | null> {
  const [row] = await sql<RuleRow[]>`SELECT * FROM rules WHERE id = ${id}`;
  return row === undefined ? null : toRecord(row);
}

export async function listRules(sql: Sql, filter: RuleFilter): Promise<RuleRecord[]> {
  // Both sides are folded by PostgreSQL's lower(): JavaScript's toLowerCase folds some letters
  // differently (final sigma, dotted capital I), and then a name would not even match itself.
  const search = filter.search;
  const rows = await sql<RuleRow[]>`
    SELECT * FROM rules
    WHERE true
      ${filter.status === undefined ? sql`` : sql`AND status = ${filter.status}`}
      ${filter.ruleType === undefined ? sql`` : sql`AND rule_type = ${filter.ruleType}`}
      ${
        search === undefined
          ? sql``
          : sql`AND (strpos(lower(name), lower(${search}::text)) > 0
                     OR strpos(lower(coalesce(description, '')), lower(${search}::text)) > 0)`
      }
    ORDER BY id`;
  return rows.map(toRecord);
}

export async function topTriggeredRules(sql: Sql, limit: number): Promise<RuleRecord[]> {
  const rows = await sql<RuleRow[]>`
    SELECT * FROM rules
    ORDER BY trigger_count DESC, last_triggered_at DESC NULLS LAST, id
    LIMIT ${limit}`;
  return rows.map(toRecord);
}

export async function updateRule(
  sql: Sql,
  id: number,
  expectedVersion: number,
  rule: RuleFields,
): Promise<RuleRecord | 'NOT_FOUND' | 'NAME_TAKEN' | 'VERSION_CHANGED'> {
  const { drl, hash } = drlOf(id, rule);
  try {
    const [row] = await sql<RuleRow[]>`
      UPDATE rules SET
        name = ${rule.name}, description = ${rule.description}, rule_type = ${rule.ruleType},
        rule_config = ${json(sql, rule.ruleConfig)}, generated_drl = ${drl}, drl_hash = ${hash},
        severity = ${rule.severity}, priority = ${rule.priority},
        notification_channels = ${json(sql, rule.notificationChannels)},
        notification_config = ${rule.notificationConfig === null ? null : json(sql, rule.notificationConfig)},
        suppression_window_minutes = ${rule.suppressionWindowMinutes},
        max_alerts_per_hour = ${rule.maxAlertsPerHour}, created_by = ${rule.createdBy},
        version = version + 1, updated_at = now()
      WHERE id = ${id} AND version = ${expectedVersion}
      RETURNING *`;
    if (row !== undefined) return toRecord(row);
  } catch (error) {
    if (isNameTaken(error)) return 'NAME_TAKEN';
    throw error;
  }
  return (await getRule(sql, id)) === null ? 'NOT_FOUND' : 'VERSION_CHANGED';
}

/** Idempotent: setting the status a rule already has changes nothing, not even updatedAt. */
export async function setRuleStatus(
  sql: Sql,
  id: number,
  status: RuleStatus,
): Promise<RuleRecord | null> {
  const [row] = await sql<RuleRow[]>`
    UPDATE rules SET
      updated_at = CASE WHEN status = ${status} THEN updated_at ELSE now() END,
      status = ${status}
    WHERE id = ${id}
    RETURNING *`;
  return row === undefined ? null : toRecord(row);
}

export async function deleteRule(sql: Sql, id: number): Promise<boolean> {
  const rows = await sql`DELETE FROM rules WHERE id = ${id} RETURNING id`;
  return rows.length > 0;
}

export async function ruleStatistics(sql: Sql): Promise<RuleStatistics> {
  const rows = await sql<{ rule_type: string; status: string; n: number }[]>`
    SELECT rule_type, status, count(*)::int AS n FROM rules GROUP BY rule_type, status`;
  const byType = Object.fromEntries(RULE_TYPES.map((t) => [t, 0])) as Record<
    (typeof RULE_TYPES)[number],
    number
  >;
  const byStatus: Record<string, number> = { ACTIVE: 0, PAUSED: 0, ARCHIVED: 0 };
  let total = 0;
  for (const row of rows) {
    total += row.n;
    byType[row.rule_type as keyof typeof byType] += row.n;
    byStatus[row.status] = (byStatus[row.status] ?? 0) + row.n;
  }
  return {
    totalRules: total,
    activeRules: byStatus.ACTIVE ?? 0,
    pausedRules: byStatus.PAUSED ?? 0,
    archivedRules: byStatus.ARCHIVED ?? 0,
    byType,
  };
}

export async function regenerateDrls(sql: Sql): Promise<number> {
  return sql.begin(async (tx) => {
    const rows = await tx<RuleRow[]>`SELECT * FROM rules ORDER BY id FOR UPDATE`;
    for (const row of rows) {
      const record = toRecord(row);
      const { drl, hash } = drlOf(record.id, record);
      await tx`UPDATE rules SET generated_drl = ${drl}, drl_hash = ${hash} WHERE id = ${record.id}`;
    }
    return rows.length;
  });
}

/**
 * The rule change counter: every statement that changes what the evaluator reads of a rule (a
 * create, an edit, a status, a delete, on any instance) moves it on (a trigger, in that
 * statement's transaction); instances poll it to reload their rules.
 */
export async function ruleChangeSeq(sql: Sql): Promise<number> {
  const [row] = await sql<{ seq: string }[]>`SELECT seq FROM rule_changes`;
  return Number(row?.seq ?? 0);
}
