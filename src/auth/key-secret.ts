/**
 * @module The secret that keys the stored API key hashes: VIGIL_KEY_SECRET, else made once and
 * kept in `<VIGIL_DATA_DIR>/key-secret` (mode 0600). Instances sharing one database must share it
 * (set VIGIL_KEY_SECRET on each), or each would know only the keys it created.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../log.ts';
import { readSecretFile, writeSecretFile } from '../secret-file.ts';

export const keySecretFile = (dataDir: string): string => path.join(dataDir, 'key-secret');

export async function loadKeySecret(
  configured: string | undefined,
  dataDir: string,
  log: Logger,
): Promise<string> {
  if (configured !== undefined) return configured;
  const file = keySecretFile(dataDir);
  const kept = await readSecretFile(file);
  if (kept !== null) return kept;
  // 0755 like the embedded PostgreSQL's own parent (its server runs as another user); the file
  // itself is the owner's alone.
  await mkdir(dataDir, { recursive: true, mode: 0o755 });
  const secret = randomBytes(32).toString('base64url');
  await writeSecretFile(file, secret);
  log.info({ file }, 'made the secret that keys stored API key hashes');
  return secret;
}
