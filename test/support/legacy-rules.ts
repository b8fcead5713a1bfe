/**
 * Rules as stored before issue 17, written straight into the table, DRL and hash as the service
 * wrote them: ANOMALY and PATTERN rules (create, update and test now refuse those types), for the
 * tests of what still reads them (lists, filters, statistics, the rule test of a stored rule); and
 * rules whose notificationConfig carries URLs, for the contact points migration.
 */
import { drlHash, generateDrl } from '../../src/domain/rules/drl.ts';
import type { TestDatabase } from './database.ts';

export async function storeLegacyRule(
  db: Pick<TestDatabase, 'sql'>,
  name: string,
  ruleType: 'ANOMALY' | 'PATTERN',
  ruleConfig: Record<string, unknown>,
  status: 'ACTIVE' | 'PAUSED' | 'ARCHIVED' = 'ACTIVE',
  description: string | null = null,
): Promise<number> {
  return insertRule(db, { name, ruleType, ruleConfig, status, description });
}

/**
 * A THRESHOLD rule as stored before contact points (issue 17): its notificationConfig holds the
 * webhook URL and headers, the Slack webhook URL, the e-mail recipients.
 */
export function storeLegacyNotifyingRule(
  db: Pick<TestDatabase, 'sql'>,
  name: string,
  notificationChannels: readonly string[],
  notificationConfig: Record<string, unknown> | null,
): Promise<number> {
  return insertRule(db, {
    name,
    ruleType: 'THRESHOLD',
    ruleConfig: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 5, windowMinutes: 5 },
    status: 'ACTIVE',
    description: null,
    notificationChannels,
    notificationConfig,
  });
}

interface RuleRow {
  readonly name: string;
  readonly ruleType: 'THRESHOLD' | 'ANOMALY' | 'PATTERN';
  readonly ruleConfig: Record<string, unknown>;
  readonly status: 'ACTIVE' | 'PAUSED' | 'ARCHIVED';
  readonly description: string | null;
  readonly notificationChannels?: readonly string[];
  readonly notificationConfig?: Record<string, unknown> | null;
}

async function insertRule(db: Pick<TestDatabase, 'sql'>, rule: RuleRow): Promise<number> {
  const json = (value: unknown) => db.sql.json(value as Parameters<typeof db.sql.json>[0]);
  const [next] = await db.sql<{ id: number }[]>`SELECT nextval('rules_id_seq')::int AS id`;
  const id = (next as { id: number }).id;
  const drl = generateDrl({
    id,
    name: rule.name,
    ruleType: rule.ruleType,
    severity: 'HIGH',
    priority: 0,
    config: rule.ruleConfig,
  });
  const config = rule.notificationConfig ?? null;
  await db.sql`
    INSERT INTO rules (id, name, description, rule_type, status, rule_config, generated_drl,
                       drl_hash, severity, priority, notification_channels, notification_config,
                       suppression_window_minutes, max_alerts_per_hour)
    VALUES (${id}, ${rule.name}, ${rule.description}, ${rule.ruleType}, ${rule.status},
            ${json(rule.ruleConfig)}, ${drl}, ${drlHash(drl)}, 'HIGH', 0,
            ${json(rule.notificationChannels ?? [])}, ${config === null ? null : json(config)},
            30, 10)`;
  return id;
}
