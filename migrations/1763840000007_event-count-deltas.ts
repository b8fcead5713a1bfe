/**
 * Page counts in two steps (issue 21): each batch adds ONE row of (type, second, count) arrays to
 * event_count_deltas in its own statement, and a storage worker later folds the pending rows into
 * event_counts (day, hour and second, per type and for all types) in one statement. Upserting those
 * six levels per batch cost PostgreSQL about 40 µs of CPU per event; folding a second of batches
 * at once upserts each counter row once. Readers add the pending rows (one snapshot: a row is
 * either still pending or already folded, never both).
 */
import type { MigrationBuilder } from 'node-pg-migrate';

export const up = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    CREATE TABLE event_count_deltas (
      event_types text[] NOT NULL,
      seconds bigint[] NOT NULL,
      counts bigint[] NOT NULL
    );
  `);
};

export const down = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    INSERT INTO event_counts (event_type, granularity, bucket, shard, n)
    SELECT k.event_type, k.granularity, k.bucket, 0, sum(u.n)
    FROM event_count_deltas d, unnest(d.event_types, d.seconds, d.counts) AS u(event_type, s, n)
    CROSS JOIN LATERAL (VALUES
      (u.event_type, 'd'::"char", floor(u.s / 86400.0)::bigint),
      (u.event_type, 'h'::"char", floor(u.s / 3600.0)::bigint),
      (u.event_type, 's'::"char", u.s),
      ('', 'd'::"char", floor(u.s / 86400.0)::bigint),
      ('', 'h'::"char", floor(u.s / 3600.0)::bigint),
      ('', 's'::"char", u.s)
    ) AS k(event_type, granularity, bucket)
    GROUP BY 1, 2, 3
    ON CONFLICT (event_type, granularity, bucket, shard)
    DO UPDATE SET n = event_counts.n + EXCLUDED.n;
    DROP TABLE event_count_deltas;
  `);
};
