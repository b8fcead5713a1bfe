/**
 * One rule evaluator among several instances (issue 23, docs/cluster-leader.md). `leases`: who
 * evaluates the rules, until when (the database's clock), and the fencing epoch that goes up at
 * every change of holder. Alerts and digests record the epoch of the leader that wrote them.
 * `notification_outbox`: each notification to send, written in the transaction of its transition
 * and deleted once its delivery results are stored; a new leader sends what the old one left.
 * `rule_changes`: one counter that every change to what the evaluator reads of a rule moves on
 * (a statement trigger), which the instances poll to reload their rules.
 */
import type { MigrationBuilder } from 'node-pg-migrate';

export const up = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    CREATE TABLE leases (
      name text PRIMARY KEY,
      holder text NOT NULL,
      epoch bigint NOT NULL,
      expires_at timestamptz NOT NULL
    );
    ALTER TABLE alerts ADD COLUMN leader_epoch bigint;
    ALTER TABLE alert_digests ADD COLUMN leader_epoch bigint;
    CREATE TABLE notification_outbox (
      transition_id text PRIMARY KEY,
      notification jsonb NOT NULL,
      notify jsonb NOT NULL,
      -- The process that sends it, and the lease epoch it holds (null: a single instance).
      claimed_by text NOT NULL,
      leader_epoch bigint,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE rule_changes (
      one boolean PRIMARY KEY DEFAULT true CHECK (one),
      seq bigint NOT NULL
    );
    INSERT INTO rule_changes (one, seq) VALUES (true, 0);
    -- The counter is in the schema of the rules table (format %I), whatever the search_path.
    CREATE FUNCTION count_rule_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      EXECUTE format('UPDATE %I.rule_changes SET seq = seq + 1', TG_TABLE_SCHEMA);
      RETURN NULL;
    END $$;
    -- Not on trigger_count, last_triggered_at (every alert) or the DRL (regenerate-drls): the
    -- evaluator reads none of them.
    CREATE TRIGGER rules_changed
      AFTER INSERT OR DELETE OR UPDATE OF status, version, name, rule_type, rule_config, severity,
        priority, suppression_window_minutes, max_alerts_per_hour, notification_channels,
        notification_config
      ON rules FOR EACH STATEMENT EXECUTE FUNCTION count_rule_change();
  `);
};

export const down = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    DROP TRIGGER rules_changed ON rules;
    DROP FUNCTION count_rule_change();
    DROP TABLE rule_changes;
    DROP TABLE notification_outbox;
    ALTER TABLE alert_digests DROP COLUMN leader_epoch;
    ALTER TABLE alerts DROP COLUMN leader_epoch;
    DROP TABLE leases;
  `);
};
