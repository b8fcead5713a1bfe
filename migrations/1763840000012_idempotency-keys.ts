/**
 * Idempotency keys (issue 22): one row per (producer, key) an event was stored under, written in
 * the event's own statement, so a key is stored if and only if its event is. The event's id and
 * timestamp answer a repeat; body_hash (sha256 of the event's fields as sent, hashed by the worker)
 * tells a retry from a reuse of the key for another event. Rows older than
 * IDEMPOTENCY_WINDOW_HOURS are deleted in chunks, oldest first (created_at index).
 */
import type { MigrationBuilder } from 'node-pg-migrate';

export const up = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    CREATE TABLE idempotency_keys (
      producer bigint NOT NULL,
      key text NOT NULL,
      event_id bigint NOT NULL,
      ts_ms float8 NOT NULL,
      body_hash bytea NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (producer, key)
    );
    CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
  `);
};

export const down = (pgm: MigrationBuilder): void => {
  pgm.sql('DROP TABLE idempotency_keys;');
};
