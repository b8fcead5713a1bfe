/**
 * Vigil (`src/main.ts`) and the bare uWS ceiling as child processes for the benches. Vigil gets a
 * schema of its own (`bench_<random>`), on DATABASE_URL or else on its embedded PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { freePort, startChildServer, type ChildServer } from './child-server.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** VIGIL_ROOT benches another copy of the service (a scratch experiment, another checkout). */
const SERVICE_ROOT = path.resolve(ROOT, process.env.VIGIL_ROOT ?? '.');
const HEALTH = '/api/v1/events/health';

export interface BenchServiceOptions {
  /** Service variables; they win over the bench's own environment, which the child inherits. */
  readonly env?: Readonly<Record<string, string>>;
  /** Write V8 CPU profiles (front thread and worker threads) into this directory. */
  readonly profileDir?: string;
}

export interface BenchService {
  readonly url: string;
  /** The directory the service ran from (VIGIL_ROOT, default this checkout). */
  readonly root: string;
  readonly pid: number;
  readonly schema: string;
  /** True when the service runs its embedded PostgreSQL (no DATABASE_URL in the environment). */
  readonly embedded: boolean;
  /** A client on the service's database with the bench schema on its search_path, for checks. */
  readonly sql: postgres.Sql;
  /**
   * Stops the service, then drops the bench schema (kept with KEEP_SCHEMA=1 or when reused with
   * BENCH_SCHEMA, to inspect plans or skip seeding) or removes the embedded data directory.
   */
  stop(): Promise<void>;
}

/** The URL src/db/embedded-postgres.ts gives its server (user postgres, password vigil). */
const embeddedUrl = (port: number): string =>
  `postgres://postgres:vigil@127.0.0.1:${port}/postgres`;

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** If the service died without stopping its embedded PostgreSQL, stop that postmaster by its pid. */
async function stopLeftoverPostmaster(dataRoot: string): Promise<void> {
  const pidFile = path.join(dataRoot, 'pg', 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number.parseInt((await readFile(pidFile, 'utf8')).split('\n')[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  process.kill(pid, 'SIGINT');
  while (isAlive(pid)) await sleep(50);
}

export async function startService(options: BenchServiceOptions = {}): Promise<BenchService> {
  // BENCH_SCHEMA reuses a schema kept by an earlier KEEP_SCHEMA=1 run (DATABASE_URL only).
  const reused = process.env.BENCH_SCHEMA;
  const keep = process.env.KEEP_SCHEMA === '1' || reused !== undefined;
  const schema = reused ?? `bench_${randomBytes(5).toString('hex')}`;
  const port = await freePort();
  const env: Record<string, string | undefined> = {
    ...process.env,
    // info lines (start, shutdown) land in the error tail; only warn and above are forwarded.
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    ...options.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_SCHEMA: schema,
  };
  const externalUrl = env.DATABASE_URL;
  let dataRoot: string | null = null;
  let databaseUrl: string;
  if (externalUrl !== undefined && externalUrl !== '') {
    databaseUrl = externalUrl;
  } else if (reused !== undefined) {
    throw new Error('BENCH_SCHEMA needs DATABASE_URL (an embedded database is new every run)');
  } else {
    delete env.DATABASE_URL;
    dataRoot = await mkdtemp(path.join(tmpdir(), 'vigil-bench-'));
    // PostgreSQL runs as its own user, which must be able to enter the data root.
    await chmod(dataRoot, 0o755);
    const pgPort = await freePort();
    env.VIGIL_DATA_DIR = dataRoot;
    env.EMBEDDED_PG_PORT = String(pgPort);
    databaseUrl = embeddedUrl(pgPort);
  }
  const profile =
    options.profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`];

  // postgres.js connects lazily: this client costs nothing until the first check or cleanup.
  const sql = postgres(databaseUrl, {
    max: 2,
    onnotice: () => {},
    connection: { search_path: schema, application_name: 'vigil-bench' },
  });
  const cleanUp = async (): Promise<void> => {
    if (dataRoot === null) {
      if (keep)
        process.stderr.write(`schema ${schema} left in place (KEEP_SCHEMA / BENCH_SCHEMA)\n`);
      else await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await sql.end({ timeout: 5 });
    } else {
      await sql.end({ timeout: 5 });
      await stopLeftoverPostmaster(dataRoot);
      await rm(dataRoot, { recursive: true, force: true });
    }
  };

  let child: ChildServer;
  try {
    child = await startChildServer({
      name: 'vigil',
      nodeArgs: [...profile, 'src/main.ts'],
      cwd: SERVICE_ROOT,
      env,
      port,
      readyPath: HEALTH,
      // First start of an embedded PostgreSQL runs initdb.
      readyTimeoutMs: 180_000,
    });
  } catch (error) {
    await cleanUp();
    throw error;
  }

  const stop = async (): Promise<void> => {
    let code: number | null;
    try {
      // The embedded database stops with the service: close our client before it goes.
      if (dataRoot !== null) await sql.end({ timeout: 5 });
      code = await child.stop();
    } finally {
      await cleanUp();
    }
    if (code !== 0) throw new Error(`vigil exited with code ${code} after SIGTERM`);
  };
  let stopping: Promise<void> | null = null;
  return {
    url: child.url,
    root: SERVICE_ROOT,
    pid: child.pid,
    schema,
    embedded: dataRoot !== null,
    sql,
    stop: () => (stopping ??= stop()),
  };
}

/**
 * The ceiling: bench/support/bare-ceiling.ts, a bare uWS server that parses and acks only (and
 * serves a fixed metrics snapshot when `env` names a SNAPSHOT_FILE).
 */
export async function startBareCeiling(
  env: Readonly<Record<string, string>> = {},
): Promise<ChildServer> {
  const port = await freePort();
  return startChildServer({
    name: 'ceiling',
    nodeArgs: ['bench/support/bare-ceiling.ts'],
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port) },
    port,
    readyPath: HEALTH,
    readyTimeoutMs: 30_000,
  });
}
