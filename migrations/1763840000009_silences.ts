/**
 * Silences (issue 18, docs/silences.md): time ranges in which the incidents of one rule, of one
 * severity, of both, or (neither given) of every rule are recorded as silenced and not notified.
 * An incident fired at T matches a silence when starts_at <= T < ends_at, rule_id is null or its
 * rule's, and severity is null or its rule's. No foreign key to rules: like alerts, a silence is
 * history, kept when its rule is deleted (rule ids are never reused, so it matches nothing more).
 */
import type { MigrationBuilder } from 'node-pg-migrate';

export const up = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    CREATE TABLE silences (
      id bigserial PRIMARY KEY,
      rule_id int4 NULL,
      severity text NULL CHECK (severity IN ('LOW', 'MEDIUM', 'HIGH', 'CRITICAL')),
      starts_at timestamptz(3) NOT NULL,
      ends_at timestamptz(3) NOT NULL,
      comment text NOT NULL,
      created_by text NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      CONSTRAINT silences_range_check CHECK (ends_at > starts_at)
    );
    -- "Silences active at T": ends_at > T leaves the few not expired (at most 1,000, the API's
    -- bound) out of the history that grows; rule and severity are then checked on those rows.
    -- The same index counts the silences not expired for that bound.
    CREATE INDEX silences_ends_at ON silences (ends_at);
  `);
};

export const down = (pgm: MigrationBuilder): void => {
  pgm.sql('DROP TABLE silences;');
};
