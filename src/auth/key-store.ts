/**
 * @module The API keys the front thread accepts, held in memory so that checking a key costs no
 * database round trip. Reloaded from the database every second (a revocation on any instance
 * takes effect within about that) and at once after a change through this instance. When a key
 * was last used is written back in batches, never on the request path.
 */
import { LRUCache } from 'lru-cache';
import type { KeyScope, StoredApiKey } from '../domain/api-key.ts';
import type { Logger } from '../log.ts';
import { REAL_TIMERS, type Timers } from '../timers.ts';
import type { KeyHasher } from './key-hash.ts';
import { keyShape } from './key-format.ts';
import type { Principal } from './principal.ts';
import { createRateLimiter, type RateLimiter } from './rate-limit.ts';

export const RELOAD_MS = 1000;
export const LAST_USED_FLUSH_MS = 5000;
/** Known keys whose hash is remembered: an HMAC once per key, not once per request. */
const HASH_CACHE_KEYS = 10_000;

export interface KeyUse {
  readonly id: number;
  readonly at: number;
}

export interface KeyStoreDeps {
  readonly load: () => Promise<readonly StoredApiKey[]>;
  readonly touch: (uses: readonly KeyUse[]) => Promise<void>;
  readonly hasher: KeyHasher;
  /** VIGIL_BOOTSTRAP_ADMIN_KEY: accepted as an admin key, stored nowhere. */
  readonly bootstrapKey?: string;
  /** Rate of a key created without its own (events/s for ingest keys, requests/s otherwise). */
  readonly defaultRates: { readonly ingest?: number; readonly other?: number };
  readonly log: Logger;
  readonly timers?: Pick<Timers, 'setInterval' | 'clearInterval'>;
}

export type Authentication =
  | { readonly ok: true; readonly principal: Principal }
  | { readonly ok: false; readonly reason: string };

export interface KeyStore {
  /** Checks a presented key (undefined: none was sent). */
  authenticate(presented: string | undefined, now: number): Authentication;
  /** Whether a principal handed out earlier still holds (its key not revoked, not expired). */
  holds(principal: Principal, now: number): boolean;
  /** Reads the keys again; resolves once the new set is in use. */
  reload(): Promise<void>;
  /** Called after every reload (live STOMP sessions are checked then). */
  onReload(listener: () => void): void;
  /** Stops the timers and writes the last uses. */
  stop(): Promise<void>;
}

/** A key as the store holds it: a principal plus what decides whether it still holds. */
interface Entry extends Principal {
  expiresAt: number | null;
  revoked: boolean;
  lastUsedAt: number;
}

export const NO_KEY =
  "An API key is required: send it as 'Authorization: Bearer <key>' or 'X-API-Key: <key>'";

const limiterFor = (rate: number | undefined, kept: RateLimiter | null): RateLimiter | null => {
  if (rate === undefined) return null;
  return kept?.perSecond === rate ? kept : createRateLimiter(rate);
};

export function createKeyStore(deps: KeyStoreDeps): KeyStore {
  const { hasher, log } = deps;
  const timers = deps.timers ?? REAL_TIMERS;
  const hashes = new LRUCache<string, string>({ max: HASH_CACHE_KEYS });
  /** The entry of a presented key; only known keys are remembered, so guesses evict nothing. */
  const entryOf = (key: string): Entry | undefined => {
    const cached = hashes.get(key);
    if (cached !== undefined) return byHash.get(cached);
    const hash = hasher(key);
    const entry = byHash.get(hash);
    if (entry !== undefined) hashes.set(key, hash);
    return entry;
  };
  let byHash = new Map<string, Entry>();
  const byId = new Map<number, Entry>();
  const listeners: (() => void)[] = [];
  const rateOf = (scope: KeyScope, own: number | null): number | undefined =>
    own ?? (scope === 'ingest' ? deps.defaultRates.ingest : deps.defaultRates.other);

  if (deps.bootstrapKey !== undefined) {
    byHash.set(hasher(deps.bootstrapKey), {
      keyId: null,
      scope: 'admin',
      label: 'VIGIL_BOOTSTRAP_ADMIN_KEY',
      allowedSources: null,
      limiter: limiterFor(deps.defaultRates.other, null),
      expiresAt: null,
      revoked: false,
      lastUsedAt: 0,
    });
  }
  const bootstrap = [...byHash.entries()];

  const apply = (keys: readonly StoredApiKey[]): void => {
    const next = new Map<string, Entry>(bootstrap);
    const seen = new Set<number>();
    for (const key of keys) {
      seen.add(key.id);
      const kept = byId.get(key.id);
      // The same object as before where the key is unchanged in kind: live sessions hold it.
      const entry: Entry = {
        keyId: key.id,
        scope: key.scope,
        label: key.prefix,
        allowedSources: key.allowedSources === null ? null : new Set(key.allowedSources),
        limiter: limiterFor(rateOf(key.scope, key.rateLimitPerSecond), kept?.limiter ?? null),
        expiresAt: key.expiresAt === null ? null : Date.parse(key.expiresAt),
        revoked: key.revokedAt !== null,
        lastUsedAt: kept?.lastUsedAt ?? 0,
      };
      const target = kept === undefined ? entry : Object.assign(kept, entry);
      byId.set(key.id, target);
      next.set(key.hash, target);
    }
    for (const [id, entry] of byId) {
      if (seen.has(id)) continue;
      entry.revoked = true; // deleted from the database: no longer a key
      byId.delete(id);
    }
    byHash = next;
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        log.error({ err: error }, 'a listener of the API key reload failed');
      }
    }
  };

  let reloading: Promise<void> | null = null;
  let failing = false;
  const loadOnce = async (): Promise<void> => {
    try {
      apply(await deps.load());
      failing = false;
    } catch (error) {
      // The keys in memory stay in force; said once per outage, not every second.
      if (!failing) log.warn({ err: error }, 'could not reload API keys; the loaded ones stay');
      failing = true;
      throw error;
    } finally {
      reloading = null;
    }
  };
  const reload = (): Promise<void> => (reloading ??= loadOnce());

  let flushedAt = 0;
  const flush = async (): Promise<void> => {
    const since = flushedAt;
    const uses: KeyUse[] = [];
    for (const entry of byId.values()) {
      if (entry.lastUsedAt > since && entry.keyId !== null) {
        uses.push({ id: entry.keyId, at: entry.lastUsedAt });
      }
    }
    if (uses.length === 0) return;
    flushedAt = Math.max(...uses.map((u) => u.at));
    try {
      await deps.touch(uses);
    } catch (error) {
      flushedAt = since;
      log.warn({ err: error }, 'could not record when API keys were last used');
    }
  };

  const reloadTimer = timers.setInterval(() => void reload().catch(() => {}), RELOAD_MS);
  const flushTimer = timers.setInterval(() => void flush(), LAST_USED_FLUSH_MS);

  const holds = (principal: Principal, now: number): boolean => {
    const entry = principal as Entry;
    return !entry.revoked && (entry.expiresAt === null || entry.expiresAt > now);
  };

  return {
    authenticate(presented, now) {
      if (presented === undefined || presented === '') return { ok: false, reason: NO_KEY };
      if (keyShape(presented).kind === 'mistyped') {
        return {
          ok: false,
          reason:
            'The API key is malformed (its checksum does not match): check it was copied whole',
        };
      }
      const entry = entryOf(presented);
      if (entry === undefined) return { ok: false, reason: 'Unknown API key' };
      if (entry.revoked) return { ok: false, reason: `API key ${entry.label}… was revoked` };
      if (entry.expiresAt !== null && entry.expiresAt <= now) {
        return {
          ok: false,
          reason: `API key ${entry.label}… expired at ${new Date(entry.expiresAt).toISOString()}`,
        };
      }
      entry.lastUsedAt = now;
      return { ok: true, principal: entry };
    },
    holds,
    reload,
    onReload: (listener) => void listeners.push(listener),
    async stop() {
      timers.clearInterval(reloadTimer);
      timers.clearInterval(flushTimer);
      await reloading?.catch(() => {});
      await flush();
    },
  };
}
