/**
 * A metrics reset made through any instance reaches every instance (issue 23, docs/cluster.md).
 * `metrics_resets`: one counter that POST /api/v1/metrics/reset moves on in cluster mode; every
 * instance polls it and resets its own metrics when it moved (src/cluster/metrics-reset-watch.ts).
 * Through PostgreSQL, not NATS: a reset reaches every instance while the broker is down too.
 */
import type { MigrationBuilder } from 'node-pg-migrate';

export const up = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    CREATE TABLE metrics_resets (
      one boolean PRIMARY KEY DEFAULT true CHECK (one),
      seq bigint NOT NULL
    );
    INSERT INTO metrics_resets (one, seq) VALUES (true, 0);
  `);
};

export const down = (pgm: MigrationBuilder): void => {
  pgm.sql(`DROP TABLE metrics_resets;`);
};
