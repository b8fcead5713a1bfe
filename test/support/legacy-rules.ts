/**
 * ANOMALY and PATTERN rules as stored before create, update and test refused those types (issue
 * 17): written straight into the table, DRL and hash as the service wrote them, for the tests of
 * what still reads such rules (lists, filters, statistics, the rule test of a stored rule).
 */
import { drlHash, generateDrl } from '../../src/domain/rules/drl.ts';
import type { TestDatabase } from './database.ts';

export async function storeLegacyRule(
  db: TestDatabase,
  name: string,
  ruleType: 'ANOMALY' | 'PATTERN',
  ruleConfig: Record<string, unknown>,
  status: 'ACTIVE' | 'PAUSED' | 'ARCHIVED' = 'ACTIVE',
  description: string | null = null,
): Promise<number> {
  const [next] = await db.sql<{ id: number }[]>`SELECT nextval('rules_id_seq')::int AS id`;
  const id = (next as { id: number }).id;
  const drl = generateDrl({
    id,
    name,
    ruleType,
    severity: 'HIGH',
    priority: 0,
    config: ruleConfig,
  });
  await db.sql`
    INSERT INTO rules (id, name, description, rule_type, status, rule_config, generated_drl,
                       drl_hash, severity, priority, notification_channels,
                       suppression_window_minutes, max_alerts_per_hour)
    VALUES (${id}, ${name}, ${description}, ${ruleType}, ${status},
            ${db.sql.json(ruleConfig as Parameters<typeof db.sql.json>[0])}, ${drl},
            ${drlHash(drl)}, 'HIGH', 0, ${db.sql.json([])}, 30, 10)`;
  return id;
}
