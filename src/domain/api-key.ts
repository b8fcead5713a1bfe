/**
 * @module API keys (issue 17): scopes, what a client sets when it creates a key, and the record
 * every read shows. A key's secret part is never in a record: only its visible prefix.
 */

/** `admin` includes `read` and `ingest`; `read` and `ingest` are apart. */
export const KEY_SCOPES = ['ingest', 'read', 'admin'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export const grants = (held: KeyScope, needed: KeyScope): boolean =>
  held === 'admin' || held === needed;

/** What a client chooses when creating a key (POST /api/v1/keys). */
export interface ApiKeyFields {
  readonly name: string;
  readonly scope: KeyScope;
  /** ISO 8601 instant; null: never expires. */
  readonly expiresAt: string | null;
  /** Ingest keys only: the sources its events may name; null: any. */
  readonly allowedSources: readonly string[] | null;
  /** Events/s (ingest) or requests/s; null: the configured default for the scope, if any. */
  readonly rateLimitPerSecond: number | null;
}

/** A key as every read shows it: never the key, never its hash. */
export interface ApiKeyRecord extends ApiKeyFields {
  readonly id: number;
  /** The key's first characters (`vgl_ingest_Ab12Cd`), to tell keys apart in lists and logs. */
  readonly prefix: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

/** A record with the key's keyed hash: what the front thread checks presented keys against. */
export interface StoredApiKey extends ApiKeyRecord {
  readonly hash: string;
}

/** Most keys that may exist, revoked ones included: the front thread holds them all in memory. */
export const MAX_API_KEYS = 10_000;
