/**
 * Notifications of the alert lifecycle (issue 18 section 3). An incident keeps the channels and
 * per-rule settings it fired with, so its RESOLVED notification goes where its FIRING one went
 * (the rule may have changed or gone since); it says whether a silence covered it (`silence_id`:
 * no foreign key, a silence may be deleted) or the budget held it back, and keeps the RESOLVED
 * notification's delivery results. A digest lists the incidents of one rule the budget held back;
 * each held incident points at the digest that carried it. Open incidents get their rule's
 * current channels, so those that fired before this migration still notify when they resolve.
 */
import type { MigrationBuilder } from 'node-pg-migrate';

export const up = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    CREATE TABLE alert_digests (
      id bigserial PRIMARY KEY,
      rule_id integer NOT NULL,
      rule_name text NOT NULL,
      rule_version integer NOT NULL,
      severity text NOT NULL,
      max_alerts_per_hour integer NOT NULL,
      held_back integer NOT NULL,
      from_at timestamptz(3) NOT NULL,
      until_at timestamptz(3) NOT NULL,
      alerts jsonb NOT NULL,
      deliveries jsonb NOT NULL DEFAULT '[]'::jsonb
    );
    ALTER TABLE alerts
      ADD COLUMN notification_channels jsonb NOT NULL DEFAULT '[]'::jsonb,
      ADD COLUMN notification_config jsonb,
      ADD COLUMN silence_id bigint,
      ADD COLUMN held_by_budget boolean NOT NULL DEFAULT false,
      ADD COLUMN digest_id bigint REFERENCES alert_digests (id),
      ADD COLUMN resolve_deliveries jsonb NOT NULL DEFAULT '[]'::jsonb;
    UPDATE alerts a SET notification_channels = r.notification_channels,
                        notification_config = r.notification_config
    FROM rules r WHERE r.id = a.rule_id AND a.state = 'FIRING';
    -- The held-back incidents not yet in a digest: read per rule at start and for each digest.
    CREATE INDEX alerts_held ON alerts (rule_id, triggered_at) WHERE held_by_budget AND digest_id IS NULL;
  `);
};

export const down = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    DROP INDEX alerts_held;
    ALTER TABLE alerts
      DROP COLUMN notification_channels,
      DROP COLUMN notification_config,
      DROP COLUMN silence_id,
      DROP COLUMN held_by_budget,
      DROP COLUMN digest_id,
      DROP COLUMN resolve_deliveries;
    DROP TABLE alert_digests;
  `);
};
