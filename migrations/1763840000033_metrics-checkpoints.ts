/**
 * Metrics survive a restart (issue 33, docs/metrics.md "Restarts"). `metrics_checkpoints`: the
 * metrics actor's latest checkpoint per owner ('single' alone, the instance id in a cluster), one
 * row replaced at each write: the versioned binary state (src/domain/metrics/checkpoint/) and its
 * high-water mark, the receivedAt from which a restore replays stored events.
 */
import type { MigrationBuilder } from 'node-pg-migrate';

export const up = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    CREATE TABLE metrics_checkpoints (
      owner text PRIMARY KEY,
      format integer NOT NULL,
      taken_at timestamptz(3) NOT NULL,
      replay_from timestamptz(3) NOT NULL,
      body bytea NOT NULL
    );
  `);
};

export const down = (pgm: MigrationBuilder): void => {
  pgm.sql(`DROP TABLE metrics_checkpoints;`);
};
