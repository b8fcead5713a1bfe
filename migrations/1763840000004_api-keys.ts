/**
 * API keys (issue 17): stored as an HMAC of the key, never the key; revoked keys stay (their
 * prefix still names them in lists and logs).
 */
import type { MigrationBuilder } from 'node-pg-migrate';

export const up = (pgm: MigrationBuilder): void => {
  pgm.sql(`
    CREATE TABLE api_keys (
      id bigserial PRIMARY KEY,
      name text NOT NULL,
      scope text NOT NULL CHECK (scope IN ('ingest', 'read', 'admin')),
      prefix text NOT NULL,
      key_hash text NOT NULL UNIQUE,
      allowed_sources text[],
      rate_limit_per_second double precision CHECK (rate_limit_per_second > 0),
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz,
      last_used_at timestamptz,
      revoked_at timestamptz
    );
  `);
};

export const down = (pgm: MigrationBuilder): void => {
  pgm.sql('DROP TABLE api_keys;');
};
