/**
 * Events and the counts that make paging exact and fast at millions of rows (DESIGN 3).
 * eventId is derived from id (evt_<id>), so there is no second unique index on the insert path.
 */
import type { MigrationBuilder } from 'node-pg-migrate';

export const up = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    CREATE TABLE events (
      id bigserial PRIMARY KEY,
      event_type text NOT NULL,
      ts timestamptz(3) NOT NULL,
      source text NOT NULL,
      user_id text,
      session_id text,
      severity text NOT NULL CHECK (severity IN ('INFO', 'WARNING', 'ERROR', 'CRITICAL')),
      tags jsonb NOT NULL DEFAULT '{}'::jsonb,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      received_at timestamptz(3) NOT NULL,
      processing_latency_ms integer NOT NULL
    );
    CREATE INDEX events_ts_id ON events (ts DESC, id DESC);
    CREATE INDEX events_type_ts_id ON events (event_type, ts DESC, id DESC);

    -- Event counts per time bucket: granularity 'h' (hour) and 's' (second), bucket in those
    -- units since the epoch, event_type '' meaning all types (a real type is never empty).
    -- Each batch written at the same time adds to its own shard rows (the batcher's writer
    -- slot), so concurrent batches never wait on one another's row locks. Deep pages find their
    -- offset by walking the counts (a per-day level is added by a later migration) instead of
    -- skipping half a million index entries.
    CREATE TABLE event_counts (
      event_type text NOT NULL,
      granularity "char" NOT NULL CHECK (granularity IN ('h', 's')),
      bucket bigint NOT NULL,
      shard smallint NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (event_type, granularity, bucket, shard)
    );
  `);
};

export const down = (pgm: MigrationBuilder): void => {
  pgm.sql('DROP TABLE event_counts; DROP TABLE events;');
};
