/**
 * @module The embedded PostgreSQL's password (main thread): random, made on the first start and
 * kept in `<VIGIL_DATA_DIR>/pg-password` (mode 0600). A cluster made by a Vigil that still used
 * the old fixed password is moved to a random one on its first start with this code.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { rename } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import type { Logger } from '../log.ts';
import { readSecretFile, writeSecretFile } from '../secret-file.ts';

/** What every embedded cluster got before passwords were random; only tried to migrate one. */
export const LEGACY_PASSWORD = 'vigil';

export const passwordFile = (dataRoot: string): string => path.join(dataRoot, 'pg-password');

/**
 * The password a migration is moving to, written before ALTER ROLE: after a crash between the two,
 * the cluster may already take it and nothing else would know it.
 */
const pendingFile = (dataRoot: string): string => `${passwordFile(dataRoot)}.pending`;

/** 256 random bits in hex: [0-9a-f] needs no quoting in a URL, a file or a SQL literal. */
export const newPassword = (): string => randomBytes(32).toString('hex');

/**
 * The SCRAM-SHA-256 verifier PostgreSQL stores for `password` (RFC 7677; what psql's \password
 * sends): the server is given the verifier only, so the password is in no statement it could log.
 */
export function scramVerifier(password: string, salt = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const hmac = (text: string): Buffer => createHmac('sha256', salted).update(text).digest();
  const storedKey = createHash('sha256').update(hmac('Client Key')).digest('base64');
  const serverKey = hmac('Server Key').toString('base64');
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey}:${serverKey}`;
}

const VERIFIER_SHAPE = /^SCRAM-SHA-256\$\d+:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/;

export interface EmbeddedServer {
  readonly port: number;
  readonly user: string;
}

const client = (server: EmbeddedServer, password: string): postgres.Sql =>
  postgres({
    host: '127.0.0.1',
    port: server.port,
    user: server.user,
    password,
    database: 'postgres',
    max: 1,
    connect_timeout: 10,
    onnotice: () => {},
  });

const refusedPassword = (error: unknown): boolean => (error as { code?: string }).code === '28P01';

/** Whether the server takes `password` (false on a refused password, throws on anything else). */
async function takes(server: EmbeddedServer, password: string): Promise<boolean> {
  const sql = client(server, password);
  try {
    await sql`SELECT 1`;
    return true;
  } catch (error) {
    if (refusedPassword(error)) return false;
    throw error;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

async function alterPassword(server: EmbeddedServer, current: string, next: string): Promise<void> {
  const verifier = scramVerifier(next);
  if (!VERIFIER_SHAPE.test(verifier)) throw new Error('unexpected SCRAM verifier shape');
  const sql = client(server, current);
  try {
    // ALTER ROLE is a utility statement: PostgreSQL takes no bind parameter in it, so the literal
    // is built here. It cannot break out of its quotes: the shape checked above (base64, '$', ':'
    // and digits) has no quote or backslash. CURRENT_USER spares us an identifier.
    await sql.unsafe(`ALTER ROLE CURRENT_USER PASSWORD '${verifier}'`);
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/**
 * The password of the running server on `dataRoot`, from its file. Without the file (a cluster
 * made by an older Vigil) the server is moved from the old fixed password to a new random one
 * first, and the file written.
 */
export async function ensurePassword(
  dataRoot: string,
  server: EmbeddedServer,
  log: Logger,
): Promise<string> {
  const kept = await readSecretFile(passwordFile(dataRoot));
  if (kept !== null) return kept;
  const pending = await readSecretFile(pendingFile(dataRoot));
  const next = pending ?? newPassword();
  if (pending === null) await writeSecretFile(pendingFile(dataRoot), next);
  if (pending === null || !(await takes(server, next))) {
    try {
      await alterPassword(server, LEGACY_PASSWORD, next);
    } catch (error) {
      if (!refusedPassword(error)) throw error;
      throw new Error(
        `The embedded PostgreSQL has no password file and refuses its old default password: write its password in ${passwordFile(dataRoot)}`,
        { cause: error },
      );
    }
  }
  await rename(pendingFile(dataRoot), passwordFile(dataRoot));
  log.info(
    { file: passwordFile(dataRoot) },
    'the embedded PostgreSQL had the old default password: it has a random one now, kept in file',
  );
  return next;
}

/**
 * The password initdb gives a new cluster: the kept one (a data root whose cluster was removed
 * keeps its file), else a new one, written before initdb so no cluster exists without its file.
 */
export async function passwordForNewCluster(dataRoot: string): Promise<string> {
  const kept = await readSecretFile(passwordFile(dataRoot));
  if (kept !== null) return kept;
  const password = newPassword();
  await writeSecretFile(passwordFile(dataRoot), password);
  return password;
}
