/**
 * The backtest (issue 20, docs/backtest.md) reads a range of stored events in the order the metrics
 * actor saw them: by receipt time, in bounded chunks (keyset on received_at, id). Without this
 * index each chunk would scan the range. received_at only grows, so an insert lands on the right
 * edge of the tree (PostgreSQL's fast path): the ingest cost is measured in docs/benchmarks.md.
 */
import type { MigrationBuilder } from 'node-pg-migrate';

export const up = (pgm: MigrationBuilder): void => {
  pgm.sql('CREATE INDEX events_received_id ON events (received_at, id);');
};

export const down = (pgm: MigrationBuilder): void => {
  pgm.sql('DROP INDEX events_received_id;');
};
