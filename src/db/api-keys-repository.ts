/**
 * @module API key SQL (storage workers). Parameterised queries only; the key itself never
 * reaches the database, only its keyed hash.
 */
import type { ApiKeyFields, ApiKeyRecord, StoredApiKey } from '../domain/api-key.ts';
import type { Sql } from './connect.ts';

interface KeyRow {
  id: string;
  name: string;
  scope: ApiKeyRecord['scope'];
  prefix: string;
  key_hash: string;
  allowed_sources: string[] | null;
  rate_limit_per_second: number | null;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString());

const toRecord = (row: KeyRow): ApiKeyRecord => ({
  id: Number(row.id),
  name: row.name,
  scope: row.scope,
  prefix: row.prefix,
  allowedSources: row.allowed_sources,
  rateLimitPerSecond: row.rate_limit_per_second,
  createdAt: row.created_at.toISOString(),
  expiresAt: iso(row.expires_at),
  lastUsedAt: iso(row.last_used_at),
  revokedAt: iso(row.revoked_at),
});

/** Class of the advisory lock that serialises key creations (apart from the rules' one). */
const CREATE_LOCK_CLASS = 0x76676c6b; // 'vglk'

/** Inserts the key unless `maxKeys` exist (revoked ones count: they are still held and listed). */
export async function createApiKey(
  sql: Sql,
  fields: ApiKeyFields,
  prefix: string,
  hash: string,
  maxKeys: number,
): Promise<ApiKeyRecord | 'KEY_LIMIT'> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${CREATE_LOCK_CLASS}, 'api_keys'::regclass::oid::int)`;
    const [stored] = await tx<{ n: number }[]>`SELECT count(*)::int AS n FROM api_keys`;
    if ((stored as { n: number }).n >= maxKeys) return 'KEY_LIMIT' as const;
    const [row] = await tx<KeyRow[]>`
      INSERT INTO api_keys (name, scope, prefix, key_hash, allowed_sources, rate_limit_per_second,
                            expires_at)
      VALUES (${fields.name}, ${fields.scope}, ${prefix}, ${hash}, ${fields.allowedSources},
              ${fields.rateLimitPerSecond}, ${fields.expiresAt})
      RETURNING *`;
    return toRecord(row as KeyRow);
  });
}

/** Every key with its hash, oldest first: what the front thread holds. */
export async function storedApiKeys(sql: Sql): Promise<StoredApiKey[]> {
  const rows = await sql<KeyRow[]>`SELECT * FROM api_keys ORDER BY id`;
  return rows.map((row) => ({ ...toRecord(row), hash: row.key_hash }));
}

/** Every key, without its hash, oldest first. */
export async function listApiKeys(sql: Sql): Promise<ApiKeyRecord[]> {
  const rows = await sql<KeyRow[]>`SELECT * FROM api_keys ORDER BY id`;
  return rows.map(toRecord);
}

/** Revokes the key (a second revocation keeps the first time); null when there is no such key. */
export async function revokeApiKey(sql: Sql, id: number): Promise<ApiKeyRecord | null> {
  const [row] = await sql<KeyRow[]>`
    UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = ${id} RETURNING *`;
  return row === undefined ? null : toRecord(row);
}

/** Records when keys were last used, one statement for all (never moves a time backwards). */
export async function touchApiKeys(
  sql: Sql,
  uses: readonly { readonly id: number; readonly at: number }[],
): Promise<void> {
  if (uses.length === 0) return;
  const ids = uses.map((u) => u.id);
  const times = uses.map((u) => new Date(u.at).toISOString());
  await sql`
    UPDATE api_keys k SET last_used_at = greatest(k.last_used_at, u.at)
    FROM unnest(${ids}::bigint[], ${times}::timestamptz[]) AS u(id, at)
    WHERE k.id = u.id`;
}
