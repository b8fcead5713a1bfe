/**
 * Several instances on one PostgreSQL (issue 23, docs/cluster.md). ingest_outbox: one row per
 * committed batch, written in the batch's own statement or transaction, holding what the peers'
 * metrics need (compact records, src/cluster/batch-payload.ts); deleted once JetStream has it,
 * republished by any instance's relay when it is older than ~10 s. instances: one row per
 * instance id, its incarnation (counted up at each start: batch numbers restart at 1 in each),
 * the process holding it, and last_seen (the heartbeat, on the database's clock).
 */
import type { MigrationBuilder } from 'node-pg-migrate';

export const up = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    CREATE TABLE ingest_outbox (
      instance_id text NOT NULL,
      batch_seq bigint NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      payload bytea NOT NULL,
      PRIMARY KEY (instance_id, batch_seq)
    );
    CREATE INDEX ingest_outbox_created_at ON ingest_outbox (created_at);
    CREATE TABLE instances (
      id text PRIMARY KEY,
      incarnation integer NOT NULL,
      holder text NOT NULL,
      last_seen timestamptz NOT NULL
    );
  `);
};

export const down = (pgm: MigrationBuilder): void => {
  pgm.sql('DROP TABLE ingest_outbox; DROP TABLE instances;');
};
