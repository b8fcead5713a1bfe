/**
 * Alert rules (spec 2.5, DESIGN 6). The unique name is enforced here, so two concurrent creates
 * of one name give one row and one unique violation (409).
 */
import type { MigrationBuilder } from 'node-pg-migrate';

export const up = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    CREATE TABLE rules (
      id serial PRIMARY KEY,
      name text NOT NULL CONSTRAINT rules_name_key UNIQUE,
      description text,
      rule_type text NOT NULL CHECK (rule_type IN ('THRESHOLD', 'RATE_CHANGE', 'ANOMALY', 'PATTERN')),
      status text NOT NULL CHECK (status IN ('ACTIVE', 'PAUSED', 'ARCHIVED')),
      rule_config jsonb NOT NULL,
      generated_drl text NOT NULL,
      drl_hash text NOT NULL,
      severity text NOT NULL CHECK (severity IN ('LOW', 'MEDIUM', 'HIGH', 'CRITICAL')),
      priority integer NOT NULL,
      notification_channels jsonb NOT NULL,
      notification_config jsonb,
      suppression_window_minutes integer NOT NULL,
      max_alerts_per_hour integer NOT NULL,
      created_by text,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      last_triggered_at timestamptz(3),
      trigger_count integer NOT NULL DEFAULT 0,
      version integer NOT NULL DEFAULT 1
    );
  `);
};

export const down = (pgm: MigrationBuilder): void => {
  pgm.sql('DROP TABLE rules;');
};
