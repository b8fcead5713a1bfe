/**
 * Vigil and the bare uWS ceiling as the benches run them, through the one child-process harness
 * (test/support/service-process.ts). Vigil gets a schema of its own (`bench_<random>`), on
 * DATABASE_URL or else on its embedded PostgreSQL, and can be restarted on the same database so a
 * bench can seed state, then measure a fresh process.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type postgres from 'postgres';
import { freePort } from '../../test/support/shared.ts';
import { embeddedDataDir, externalDatabase, type RunDatabase } from '../../test/support/shared.ts';
import {
  ROOT,
  spawnServer,
  spawnVigil,
  stopServer,
  type ServerProcess,
} from '../../test/support/shared.ts';

/** VIGIL_ROOT benches another copy of the service (a scratch experiment, another checkout). */
export const SERVICE_ROOT = path.resolve(ROOT, process.env.VIGIL_ROOT ?? '.');

/**
 * Benches measure what `npm start` runs: the compiled build, built here once per bench. A copy
 * without a build configuration (an older checkout under VIGIL_ROOT) runs its sources through tsx.
 */
let built: Promise<boolean> | null = null;
export function buildService(): Promise<boolean> {
  built ??= Promise.resolve().then(() => {
    if (!existsSync(path.join(SERVICE_ROOT, 'tsconfig.build.json'))) {
      process.stderr.write(
        `# ${SERVICE_ROOT}: no build configuration, its sources run through tsx\n`,
      );
      return false;
    }
    const tsc = path.join(SERVICE_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
      cwd: SERVICE_ROOT,
      stdio: 'inherit',
    });
    process.stderr.write(
      '# the service runs its compiled build (dist/src/main.js), as npm start does\n',
    );
    return true;
  });
  return built;
}

export interface BenchServiceOptions {
  /** Service variables; they win over the bench's own environment, which the child inherits. */
  readonly env?: Readonly<Record<string, string>>;
  /** Write V8 CPU profiles (front thread and worker threads) into this directory. */
  readonly profileDir?: string;
}

export interface BenchService {
  /** The running process's base URL and pid (they change on restart). */
  readonly url: string;
  readonly pid: number;
  /** The directory the service ran from (VIGIL_ROOT, default this checkout). */
  readonly root: string;
  readonly schema: string;
  /** True when the service runs its embedded PostgreSQL (no DATABASE_URL in the environment). */
  readonly embedded: boolean;
  /** The embedded PostgreSQL's data directory; null on DATABASE_URL. */
  readonly pgDataDir: string | null;
  /** A client on the service's database with the bench schema on its search_path, for checks. */
  readonly sql: postgres.Sql;
  /** Stops the process (SIGTERM, exit 0 expected) and starts a new one on the same database. */
  restart(profileDir?: string): Promise<void>;
  /**
   * Stops the service, then drops the bench schema (kept with KEEP_SCHEMA=1 or when reused with
   * BENCH_SCHEMA, to inspect plans or skip seeding) or removes the embedded data directory.
   */
  stop(): Promise<void>;
}

/** A server only the bench may stop: anything else means the numbers measured a dying server. */
async function stopOwned(proc: ServerProcess, name: string): Promise<number | null> {
  const early = proc.exit();
  if (early !== null) {
    throw new Error(
      `${name} (pid ${proc.pid}) exited by itself during the bench ` +
        `(code ${early.code}, signal ${early.signal}); its last output:\n${proc.tail()}`,
    );
  }
  return (await stopServer(proc)).code;
}

async function benchDatabase(): Promise<RunDatabase> {
  // BENCH_SCHEMA reuses a schema kept by an earlier KEEP_SCHEMA=1 run (DATABASE_URL only).
  const reused = process.env.BENCH_SCHEMA;
  const url = process.env.DATABASE_URL;
  const schema = { prefix: 'bench', ...(reused === undefined ? {} : { schema: reused }) };
  if (url !== undefined && url !== '') {
    return externalDatabase(url, {
      ...schema,
      keep: process.env.KEEP_SCHEMA === '1' || reused !== undefined,
    });
  }
  if (reused !== undefined) {
    throw new Error('BENCH_SCHEMA needs DATABASE_URL (an embedded database is new every run)');
  }
  return embeddedDataDir(schema);
}

export async function startService(options: BenchServiceOptions = {}): Promise<BenchService> {
  const compiled = await buildService();
  const db = await benchDatabase();
  const embedded = db.kind === 'embedded';
  const launch = (profileDir: string | undefined): Promise<ServerProcess> =>
    spawnVigil({
      env: { ...options.env, ...db.env },
      inheritEnv: true,
      compiled,
      // Ctrl-C on the bench reaches the service and its PostgreSQL as before: no group of its own.
      processGroup: false,
      root: SERVICE_ROOT,
      ...(profileDir === undefined ? {} : { profileDir }),
    });
  const stopProcess = async (proc: ServerProcess): Promise<void> => {
    const code = await stopOwned(proc, 'vigil');
    if (code !== 0) throw new Error(`vigil exited with code ${code} after SIGTERM`);
  };

  let proc = await launch(options.profileDir).catch(async (error: unknown) => {
    await db.cleanup();
    throw error;
  });
  const stop = async (): Promise<void> => {
    try {
      // The embedded database stops with the service: close our client before it goes.
      if (embedded) await db.sql.end({ timeout: 5 });
      await stopProcess(proc);
    } finally {
      await db.cleanup();
    }
  };
  let stopping: Promise<void> | null = null;
  return {
    get url() {
      return proc.url;
    },
    get pid() {
      return proc.pid;
    },
    root: SERVICE_ROOT,
    schema: db.schema,
    embedded,
    pgDataDir: db.pgDataDir,
    sql: db.sql,
    restart: async (profileDir) => {
      await stopProcess(proc);
      proc = await launch(profileDir);
    },
    stop: () => (stopping ??= stop()),
  };
}

export interface Ceiling {
  readonly url: string;
  readonly pid: number;
  /** SIGTERM; rejects if the ceiling had already exited by itself. */
  stop(): Promise<void>;
}

/**
 * The ceiling: bench/harness/bare-ceiling.ts, a bare uWS server that parses and acks only (and
 * serves a fixed metrics snapshot when `env` names a SNAPSHOT_FILE).
 */
export async function startBareCeiling(
  env: Readonly<Record<string, string>> = {},
): Promise<Ceiling> {
  const proc = await spawnServer({
    name: 'ceiling',
    script: path.join('bench', 'harness', 'bare-ceiling.ts'),
    cwd: ROOT,
    env: { ...process.env, ...env },
    port: await freePort(),
    readyTimeoutMs: 30_000,
  });
  return {
    url: proc.url,
    pid: proc.pid,
    stop: async () => {
      await stopOwned(proc, 'ceiling');
    },
  };
}
