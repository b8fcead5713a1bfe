/**
 * Alerts (DESIGN 6): history, so no foreign key to rules: deleting a rule keeps its alerts with the
 * name and version the rule had when it fired.
 */
import type { MigrationBuilder } from 'node-pg-migrate';

export const up = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    CREATE TABLE alerts (
      id bigserial PRIMARY KEY,
      rule_id integer NOT NULL,
      rule_name text NOT NULL,
      rule_version integer NOT NULL,
      severity text NOT NULL CHECK (severity IN ('LOW', 'MEDIUM', 'HIGH', 'CRITICAL')),
      triggered_at timestamptz(3) NOT NULL,
      matched_conditions jsonb NOT NULL,
      current_values jsonb NOT NULL,
      condition_text text NOT NULL,
      message text NOT NULL,
      deliveries jsonb NOT NULL DEFAULT '[]'::jsonb
    );
    CREATE INDEX alerts_triggered ON alerts (triggered_at DESC, id DESC);
    CREATE INDEX alerts_rule_triggered ON alerts (rule_id, triggered_at DESC, id DESC);
  `);
};

export const down = (pgm: MigrationBuilder): void => {
  pgm.sql('DROP TABLE alerts;');
};
