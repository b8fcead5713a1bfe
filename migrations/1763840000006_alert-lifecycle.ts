/**
 * Alert lifecycle (issue 18): an alert is one incident, FIRING until RESOLVED, with the values and
 * the explained condition at each transition, and its acknowledgement. Alerts stored before are
 * closed incidents (RESOLVED at the moment they fired, reason `before lifecycle`), so no rule comes
 * back FIRING from an alert that never had a lifecycle.
 */
import type { MigrationBuilder } from 'node-pg-migrate';

export const up = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    ALTER TABLE alerts
      ADD COLUMN state text,
      ADD COLUMN resolved_at timestamptz(3),
      ADD COLUMN resolved_reason text,
      ADD COLUMN values_at_resolve jsonb,
      ADD COLUMN acknowledged_at timestamptz(3),
      ADD COLUMN acknowledged_by text,
      ADD COLUMN acknowledge_comment text,
      ADD COLUMN explanation jsonb,
      ADD COLUMN resolve_explanation jsonb,
      ADD COLUMN explanation_text text NOT NULL DEFAULT '';
    UPDATE alerts SET state = 'RESOLVED', resolved_at = triggered_at,
                      resolved_reason = 'before lifecycle';
    ALTER TABLE alerts
      ALTER COLUMN state SET NOT NULL,
      ADD CONSTRAINT alerts_state_check CHECK (state IN ('FIRING', 'RESOLVED')),
      ADD CONSTRAINT alerts_resolved_check CHECK ((state = 'RESOLVED') = (resolved_at IS NOT NULL));
    -- The open incidents: read per rule when the evaluator loads its rules, and to resolve one.
    CREATE INDEX alerts_open ON alerts (rule_id) WHERE state = 'FIRING';
  `);
};

export const down = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    DROP INDEX alerts_open;
    ALTER TABLE alerts
      DROP COLUMN state,
      DROP COLUMN resolved_at,
      DROP COLUMN resolved_reason,
      DROP COLUMN values_at_resolve,
      DROP COLUMN acknowledged_at,
      DROP COLUMN acknowledged_by,
      DROP COLUMN acknowledge_comment,
      DROP COLUMN explanation,
      DROP COLUMN resolve_explanation,
      DROP COLUMN explanation_text;
  `);
};
