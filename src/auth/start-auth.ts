/**
 * @module Authentication at start-up (main thread): the key secret, the key store, and a first
 * admin key when there is no way in yet; or, with VIGIL_AUTH=off, nothing but a warning that
 * repeats while the service runs.
 */
import path from 'node:path';
import type { StoragePool } from '../actors/storage-pool.ts';
import type { Config } from '../config.ts';
import type { StoredApiKey } from '../domain/api-key.ts';
import type { Logger } from '../log.ts';
import { writeSecretFile } from '../secret-file.ts';
import { REAL_TIMERS, type Timers } from '../timers.ts';
import { generateKey } from './key-format.ts';
import { keyHasher, type KeyHasher } from './key-hash.ts';
import { loadKeySecret } from './key-secret.ts';
import { createKeyStore, type KeyStore } from './key-store.ts';

export const AUTH_OFF_WARNING_MS = 10 * 60 * 1000;
const AUTH_OFF_WARNING =
  'VIGIL_AUTH=off: every route is open to anyone who can reach this port; for local development only';

export const adminKeyFile = (dataDir: string): string => path.join(dataDir, 'admin.key');

export interface Authentication {
  /** null: authentication off. */
  readonly store: KeyStore | null;
  readonly hasher: KeyHasher;
  stop(): Promise<void>;
}

async function storedKeys(pool: StoragePool): Promise<readonly StoredApiKey[]> {
  const result = await pool.run('storedApiKeys', {});
  if (!result.ok) throw new Error(`could not read API keys: ${result.message}`);
  return result.value;
}

const usableAdmin = (key: StoredApiKey, now: number): boolean =>
  key.scope === 'admin' &&
  key.revokedAt === null &&
  (key.expiresAt === null || Date.parse(key.expiresAt) > now);

/**
 * Without VIGIL_BOOTSTRAP_ADMIN_KEY and without a usable stored admin key nobody could get in:
 * a new admin key is made and written to `<VIGIL_DATA_DIR>/admin.key` (0600). The log says where,
 * never what.
 */
async function ensureAdminKey(config: Config, pool: StoragePool, hasher: KeyHasher, log: Logger) {
  if (config.VIGIL_BOOTSTRAP_ADMIN_KEY !== undefined) return;
  const now = Date.now();
  if ((await storedKeys(pool)).some((key) => usableAdmin(key, now))) return;
  const { key, prefix } = generateKey('admin');
  const file = adminKeyFile(config.VIGIL_DATA_DIR);
  // Written before it is stored: a key in force that nobody can read would be no way in.
  await writeSecretFile(file, key);
  const result = await pool.run('createApiKey', {
    fields: {
      name: 'first admin key',
      scope: 'admin',
      expiresAt: null,
      allowedSources: null,
      rateLimitPerSecond: null,
    },
    prefix,
    hash: hasher(key),
    maxKeys: Number.MAX_SAFE_INTEGER,
  });
  if (!result.ok) throw new Error(`could not store the first admin key: ${result.message}`);
  log.warn(
    { file, prefix },
    'no admin API key existed: made one; read it from file, then create your own keys with it',
  );
}

export async function startAuthentication(
  config: Config,
  pool: StoragePool,
  log: Logger,
  timers: Pick<Timers, 'setInterval' | 'clearInterval'> = REAL_TIMERS,
): Promise<Authentication> {
  const hasher = keyHasher(
    await loadKeySecret(config.VIGIL_KEY_SECRET, config.VIGIL_DATA_DIR, log),
  );
  if (config.VIGIL_AUTH === 'off') {
    log.warn(AUTH_OFF_WARNING);
    const warning = timers.setInterval(() => log.warn(AUTH_OFF_WARNING), AUTH_OFF_WARNING_MS);
    return {
      store: null,
      hasher,
      stop: () => {
        timers.clearInterval(warning);
        return Promise.resolve();
      },
    };
  }
  await ensureAdminKey(config, pool, hasher, log);
  const store = createKeyStore({
    load: () => storedKeys(pool),
    touch: async (uses) => {
      const result = await pool.run('touchApiKeys', { uses });
      if (!result.ok) throw new Error(result.message);
    },
    hasher,
    ...(config.VIGIL_BOOTSTRAP_ADMIN_KEY === undefined
      ? {}
      : { bootstrapKey: config.VIGIL_BOOTSTRAP_ADMIN_KEY }),
    defaultRates: {
      ...(config.RATE_LIMIT_INGEST_PER_SECOND === undefined
        ? {}
        : { ingest: config.RATE_LIMIT_INGEST_PER_SECOND }),
      ...(config.RATE_LIMIT_REQUESTS_PER_SECOND === undefined
        ? {}
        : { other: config.RATE_LIMIT_REQUESTS_PER_SECOND }),
    },
    log,
    timers,
  });
  await store.reload();
  return { store, hasher, stop: () => store.stop() };
}
