/**
 * The PostgreSQL a reliability run uses: a fresh schema on an external server, a data directory
 * for the service's own embedded PostgreSQL, or an embedded server of our own to stop and freeze.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { freePort } from '../support/child-server.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded-postgres.ts';
import { createLogger } from '../../src/log.ts';
import { isAlive } from './vigil-process.ts';

export interface RunDatabase {
  readonly kind: 'external' | 'embedded';
  /** Variables that point the service at it. */
  readonly env: Readonly<Record<string, string>>;
  /** A client on the service's tables, for checks. */
  readonly sql: postgres.Sql;
  /** The embedded PostgreSQL's data directory (VIGIL_DATA_DIR/pg), null for an external one. */
  readonly pgDataDir: string | null;
  /** Drops the schema, or stops a leftover postmaster and removes the data directory. */
  cleanup(): Promise<void>;
}

const client = (url: string, schema: string): postgres.Sql =>
  postgres(url, {
    max: 2,
    onnotice: () => {},
    connect_timeout: 5,
    connection: { search_path: schema, application_name: 'vigil-reliability' },
  });

/** A schema of its own on `url` (the service migrates it at start). */
export function externalDatabase(url: string): RunDatabase {
  const schema = `rel_${randomBytes(5).toString('hex')}`;
  const sql = client(url, schema);
  return {
    kind: 'external',
    env: { DATABASE_URL: url, DATABASE_SCHEMA: schema },
    sql,
    pgDataDir: null,
    cleanup: async () => {
      await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await sql.end({ timeout: 5 });
    },
  };
}

/** A data root for the service's embedded PostgreSQL (no DATABASE_URL), on a free port. */
export async function embeddedDataDir(): Promise<RunDatabase> {
  const root = await mkdtemp(path.join(tmpdir(), 'vigil-rel-'));
  // The server runs as the postgres user, which must be able to enter the root.
  await chmod(root, 0o755);
  const port = await freePort();
  const sql = client(`postgres://postgres:vigil@127.0.0.1:${port}/postgres`, 'public');
  const pgDataDir = path.join(root, 'pg');
  return {
    kind: 'embedded',
    env: { VIGIL_DATA_DIR: root, EMBEDDED_PG_PORT: String(port) },
    sql,
    pgDataDir,
    cleanup: async () => {
      await sql.end({ timeout: 2 });
      await stopPostmaster(pgDataDir);
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** The pid in `<dataDir>/postmaster.pid`, or null. */
export function postmasterPid(dataDir: string): number | null {
  const file = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(file)) return null;
  const pid = Number.parseInt(readFileSync(file, 'utf8').split('\n')[0] ?? '', 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** Rewrites the pid line of postmaster.pid (to fake a stale file naming another process). */
export async function rewritePostmasterPid(dataDir: string, pid: number): Promise<void> {
  const file = path.join(dataDir, 'postmaster.pid');
  const lines = (await readFile(file, 'utf8')).split('\n');
  lines[0] = String(pid);
  await writeFile(file, lines.join('\n'));
}

/** Fast shutdown (SIGINT) of the postmaster named by the pid file, if it is a live postgres. */
export async function stopPostmaster(dataDir: string): Promise<void> {
  const pid = postmasterPid(dataDir);
  if (pid === null || !isPostgres(pid)) return;
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + 30_000;
  while (isAlive(pid) && Date.now() < deadline) await sleep(50);
}

/** True when `pid` is a live process whose command name is postgres. */
export function isPostgres(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
  } catch {
    return false;
  }
}

/** Live processes whose parent is `pid` (from /proc). */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return children;
}

/** Waits until no process is left from a postmaster we killed (its backends exit on their own). */
export async function waitPostgresGone(pids: readonly number[], timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(isAlive) && Date.now() < deadline) await sleep(50);
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
