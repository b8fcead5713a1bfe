/**
 * Adds a per-day level to event_counts: totals and the first step of a deep page then sum one row
 * per day and writer shard instead of one per hour.
 */
import type { MigrationBuilder } from 'node-pg-migrate';

export const up = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    ALTER TABLE event_counts DROP CONSTRAINT event_counts_granularity_check;
    ALTER TABLE event_counts ADD CONSTRAINT event_counts_granularity_check
      CHECK (granularity IN ('d', 'h', 's'));
    INSERT INTO event_counts (event_type, granularity, bucket, shard, n)
    SELECT event_type, 'd', floor(bucket / 24.0)::bigint, shard, sum(n)
    FROM event_counts WHERE granularity = 'h'
    GROUP BY event_type, floor(bucket / 24.0)::bigint, shard;
  `);
};

export const down = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    DELETE FROM event_counts WHERE granularity = 'd';
    ALTER TABLE event_counts DROP CONSTRAINT event_counts_granularity_check;
    ALTER TABLE event_counts ADD CONSTRAINT event_counts_granularity_check
      CHECK (granularity IN ('h', 's'));
  `);
};
