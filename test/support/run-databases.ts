/**
 * The PostgreSQL a child service (test/support/service-process.ts) runs on: a fresh schema on an
 * external server, a data directory for the service's own embedded PostgreSQL, or an embedded
 * server of our own to stop and freeze. Used by the reliability tests and by every bench.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { passwordFile } from '../../src/db/embedded-password.ts';
import { readSecretFile } from '../../src/secret-file.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded-postgres.ts';
import { createLogger } from '../../src/log.ts';
import { freePort } from './free-port.ts';
import { childrenOf, postmasterPid, stopPostmaster } from './processes.ts';

export interface RunDatabase {
  readonly kind: 'external' | 'embedded';
  /** The schema the service's tables are in. */
  readonly schema: string;
  /** Variables that point the service at it. */
  readonly env: Readonly<Record<string, string>>;
  /** A client on the service's tables, for checks. */
  readonly sql: postgres.Sql;
  /** The embedded PostgreSQL's data directory (VIGIL_DATA_DIR/pg), null for an external one. */
  readonly pgDataDir: string | null;
  /** Drops the schema, or stops a leftover postmaster and removes the data directory. */
  cleanup(): Promise<void>;
}

export interface SchemaOptions {
  /** The schema's name (default: `<prefix>_<random>`, prefix `rel`). */
  readonly schema?: string;
  readonly prefix?: string;
  /** Leave the schema in place at cleanup (a bench kept it to inspect plans or to reuse it). */
  readonly keep?: boolean;
}

const schemaName = (options: SchemaOptions): string =>
  options.schema ?? `${options.prefix ?? 'rel'}_${randomBytes(5).toString('hex')}`;

// postgres.js connects lazily: this client costs nothing until the first check or cleanup.
const client = (url: string, schema: string, password?: () => Promise<string>): postgres.Sql =>
  postgres(url, {
    ...(password === undefined ? {} : { password }),
    max: 2,
    onnotice: () => {},
    connect_timeout: 5,
    connection: { search_path: schema, application_name: 'vigil-reliability' },
  });

/** A schema of its own on `url` (the service migrates it at start). */
export function externalDatabase(url: string, options: SchemaOptions = {}): RunDatabase {
  const schema = schemaName(options);
  const sql = client(url, schema);
  return {
    kind: 'external',
    schema,
    env: { DATABASE_URL: url, DATABASE_SCHEMA: schema },
    sql,
    pgDataDir: null,
    cleanup: async () => {
      if (options.keep === true) process.stderr.write(`schema ${schema} left in place\n`);
      else await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await sql.end({ timeout: 5 });
    },
  };
}

/**
 * A data root for the service's embedded PostgreSQL (no DATABASE_URL), on a free port; the tables
 * go to `public` unless `options` name a schema.
 */
export async function embeddedDataDir(options: SchemaOptions = {}): Promise<RunDatabase> {
  const root = await mkdtemp(path.join(tmpdir(), 'vigil-rel-'));
  // The server runs as the postgres user, which must be able to enter the root.
  await chmod(root, 0o755);
  const port = await freePort();
  const schema = options.schema ?? (options.prefix === undefined ? 'public' : schemaName(options));
  // The service writes the password file at its first start, before the first check connects.
  const password = async (): Promise<string> =>
    (await readSecretFile(passwordFile(root))) ?? 'the service has not started';
  const sql = client(`postgres://postgres@127.0.0.1:${port}/postgres`, schema, password);
  const pgDataDir = path.join(root, 'pg');
  return {
    kind: 'embedded',
    schema,
    env: {
      VIGIL_DATA_DIR: root,
      EMBEDDED_PG_PORT: String(port),
      ...(schema === 'public' ? {} : { DATABASE_SCHEMA: schema }),
    },
    sql,
    pgDataDir,
    cleanup: async () => {
      await sql.end({ timeout: 2 });
      await stopPostmaster(pgDataDir);
      await rm(root, { recursive: true, force: true });
    },
  };
}

/**
 * An embedded PostgreSQL run by this process (not by the service), so a test can stop it, start it
 * again on the same data and port, or freeze it (SIGSTOP: connections stay open, nothing answers).
 */
export interface OwnPostgres {
  readonly url: string;
  running(): boolean;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** SIGSTOP the postmaster and every backend: a server that hangs instead of refusing. */
  freeze(): number[];
  thaw(pids: readonly number[]): void;
  cleanup(): Promise<void>;
}

export async function ownPostgres(): Promise<OwnPostgres> {
  const log = createLogger('fatal', 'reliability-pg');
  const root = await mkdtemp(path.join(tmpdir(), 'vigil-rel-pg-'));
  await chmod(root, 0o755);
  const port = await freePort();
  let db: EmbeddedDatabase | null = await startEmbeddedPostgres(root, port, log);
  const url = db.url;
  const dataDir = path.join(root, 'pg');
  return {
    url,
    running: () => db !== null,
    stop: async () => {
      await db?.stop();
      db = null;
    },
    start: async () => {
      db ??= await startEmbeddedPostgres(root, port, log);
    },
    freeze: () => {
      const postmaster = postmasterPid(dataDir);
      if (postmaster === null) return [];
      const pids = [postmaster, ...childrenOf(postmaster)];
      for (const pid of pids) process.kill(pid, 'SIGSTOP');
      return pids;
    },
    thaw: (pids) => {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // Gone.
        }
      }
    },
    cleanup: async () => {
      await db?.stop();
      db = null;
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** An embedded PostgreSQL of our own, given to the service as DATABASE_URL: it outlives the service. */
export async function ownDatabase(): Promise<RunDatabase & { readonly pg: OwnPostgres }> {
  const pg = await ownPostgres();
  const sql = client(pg.url, 'public');
  return {
    pg,
    kind: 'embedded',
    schema: 'public',
    env: { DATABASE_URL: pg.url },
    sql,
    pgDataDir: null,
    cleanup: async () => {
      await sql.end({ timeout: 2 });
      await pg.cleanup();
    },
  };
}

/** DATABASE_URL when set, else an embedded PostgreSQL of our own. */
export const runDatabase = (): Promise<RunDatabase> | RunDatabase => {
  const url = process.env.DATABASE_URL;
  return url === undefined || url === '' ? ownDatabase() : externalDatabase(url);
};
