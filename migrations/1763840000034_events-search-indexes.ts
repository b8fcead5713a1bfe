/**
 * Event search (issue 34, docs/api.md#event-search): the filters a first look at an incident uses
 * most get an index that keeps the page's order (ts desc, id desc), so a page and its capped count
 * read index entries of matches only. userId and sessionId are often null: partial indexes. Tags
 * and metadata get none (a GIN index costs ingest the most); docs/benchmarks.md has the per-event
 * ingest cost of each and the search latencies measured with them.
 */
import type { MigrationBuilder } from 'node-pg-migrate';

export const up = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    CREATE INDEX events_source_ts_id ON events (source, ts DESC, id DESC);
    CREATE INDEX events_severity_ts_id ON events (severity, ts DESC, id DESC);
    CREATE INDEX events_user_ts_id ON events (user_id, ts DESC, id DESC) WHERE user_id IS NOT NULL;
    CREATE INDEX events_session_ts_id ON events (session_id, ts DESC, id DESC)
      WHERE session_id IS NOT NULL;
  `);
};

export const down = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    DROP INDEX events_session_ts_id;
    DROP INDEX events_user_ts_id;
    DROP INDEX events_severity_ts_id;
    DROP INDEX events_source_ts_id;
  `);
};
