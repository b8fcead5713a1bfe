/**
 * Retention (issue 23, docs/operations.md#retention): `events` becomes a table partitioned by range
 * of `ts`, the key its pages are ordered by and its counts (event_counts) are bucketed by, so a
 * dropped partition takes exactly the count buckets of its time range with it. Converted in this
 * migration's transaction, without losing a row:
 *
 * - the partitions cover the existing rows: `events_before` (MINVALUE up to the year of the oldest
 *   row, or ten years back at most), one per year from there, one per month of this year up to
 *   today, one for today; the DEFAULT partition `events_default` takes anything later. The
 *   service's maintenance job (src/actors/retention-job.ts) creates partitions ahead from there;
 * - ids keep their values and `events_id_seq` goes on from where it was;
 * - the primary key becomes (id, ts), as a partitioned table's must hold its partition key: a
 *   lookup by id probes each partition's primary key index (a few dozen, docs/decisions.md);
 * - `event_retention.kept_from`: events older than it are being dropped (their partition goes at
 *   the next maintenance run); pages, totals and by-id reads ignore them and their counts, which
 *   are pruned later in bounded chunks (on the (granularity, bucket) index added here).
 */
import type { MigrationBuilder } from 'node-pg-migrate';

const COLUMNS = `id, event_type, ts, source, user_id, session_id, severity, tags, metadata,
  received_at, processing_latency_ms`;

const INDEXES = `
  ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (id, ts);
  CREATE INDEX events_ts_id ON events (ts DESC, id DESC);
  CREATE INDEX events_type_ts_id ON events (event_type, ts DESC, id DESC);
  CREATE INDEX events_received_id ON events (received_at, id);
`;

export const up = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    CREATE TABLE events_partitioned (
      id bigint NOT NULL DEFAULT nextval('events_id_seq'),
      event_type text NOT NULL,
      ts timestamptz(3) NOT NULL,
      source text NOT NULL,
      user_id text,
      session_id text,
      severity text NOT NULL
        CONSTRAINT events_severity_check CHECK (severity IN ('INFO', 'WARNING', 'ERROR', 'CRITICAL')),
      tags jsonb NOT NULL DEFAULT '{}'::jsonb,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      received_at timestamptz(3) NOT NULL,
      processing_latency_ms integer NOT NULL
    ) PARTITION BY RANGE (ts);

    -- Partition bounds are UTC days; set_config(.., true) lasts until this transaction ends. Years,
    -- then months: few partitions for the history (docs/decisions.md says why few).
    DO $$
    DECLARE
      zone text := current_setting('TimeZone');
      today timestamptz;
      oldest timestamptz;
      lo timestamptz;
      b timestamptz;
      nb timestamptz;
    BEGIN
      PERFORM set_config('TimeZone', 'UTC', true);
      today := date_trunc('day', now());
      SELECT min(ts) INTO oldest FROM events;
      lo := CASE WHEN oldest IS NULL OR oldest >= today THEN today
                 WHEN oldest >= date_trunc('year', today) THEN date_trunc('month', oldest)
                 ELSE date_trunc('year', greatest(oldest, today - interval '10 years')) END;
      EXECUTE format('CREATE TABLE events_before PARTITION OF events_partitioned
                      FOR VALUES FROM (MINVALUE) TO (%L)', lo);
      b := lo;
      WHILE b < today LOOP
        nb := least(CASE WHEN b < date_trunc('year', today)
                         THEN date_trunc('year', b) + interval '1 year'
                         ELSE date_trunc('month', b) + interval '1 month' END, today);
        EXECUTE format('CREATE TABLE %I PARTITION OF events_partitioned FOR VALUES FROM (%L) TO (%L)',
                       'events_p' || to_char(b, 'YYYYMMDD'), b, nb);
        b := nb;
      END LOOP;
      EXECUTE format('CREATE TABLE %I PARTITION OF events_partitioned FOR VALUES FROM (%L) TO (%L)',
                     'events_p' || to_char(today, 'YYYYMMDD'), today, today + interval '1 day');
      PERFORM set_config('TimeZone', zone, true);
    END
    $$;
    CREATE TABLE events_default PARTITION OF events_partitioned DEFAULT;

    INSERT INTO events_partitioned (${COLUMNS}) SELECT ${COLUMNS} FROM events;
    -- The sequence outlives the old table (it was owned by it), then belongs to the new one.
    ALTER SEQUENCE events_id_seq OWNED BY NONE;
    DROP TABLE events;
    ALTER TABLE events_partitioned RENAME TO events;
    ALTER SEQUENCE events_id_seq OWNED BY events.id;
    ${INDEXES}

    CREATE TABLE event_retention (
      only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
      kept_from timestamptz NOT NULL DEFAULT '-infinity'
    );
    INSERT INTO event_retention DEFAULT VALUES;
    CREATE INDEX event_counts_bucket ON event_counts (granularity, bucket);
  `);
};

/** Back to one plain table (every row, the sequence where it is); what retention dropped stays gone. */
export const down = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    DROP INDEX event_counts_bucket;
    DROP TABLE event_retention;
    CREATE TABLE events_plain (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
    INSERT INTO events_plain (${COLUMNS}) SELECT ${COLUMNS} FROM events;
    ALTER SEQUENCE events_id_seq OWNED BY NONE;
    DROP TABLE events;
    ALTER TABLE events_plain RENAME TO events;
    ALTER SEQUENCE events_id_seq OWNED BY events.id;
    ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (id);
    CREATE INDEX events_ts_id ON events (ts DESC, id DESC);
    CREATE INDEX events_type_ts_id ON events (event_type, ts DESC, id DESC);
    CREATE INDEX events_received_id ON events (received_at, id);
  `);
};
