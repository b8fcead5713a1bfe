/**
 * Vigil as a child process that can be stopped and started again on the same database (embedded
 * data directory or DATABASE_URL schema), so a bench can seed state, then measure a fresh process.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { freePort, startChildServer, type ChildServer } from '../support/child-server.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface RestartableService {
  /** The running process's base URL and pid (they change on restart). */
  readonly url: string;
  readonly pid: number;
  readonly embedded: boolean;
  /** Stops the process (SIGTERM, exit 0 expected) and starts a new one on the same database. */
  restart(profileDir?: string): Promise<void>;
  /** Stops the process and removes the database (data directory or schema). */
  stop(): Promise<void>;
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A postmaster the service failed to stop (it died) is stopped by its pid file. */
async function stopLeftoverPostmaster(dataRoot: string): Promise<void> {
  const pidFile = path.join(dataRoot, 'pg', 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number.parseInt((await readFile(pidFile, 'utf8')).split('\n')[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  process.kill(pid, 'SIGINT');
  while (isAlive(pid)) await sleep(50);
}

export async function startRestartableService(profileDir?: string): Promise<RestartableService> {
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const external = process.env.DATABASE_URL;
  const embedded = external === undefined || external === '';
  let dataRoot: string | null = null;
  const base: Record<string, string | undefined> = {
    ...process.env,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    HOST: '127.0.0.1',
    DATABASE_SCHEMA: schema,
  };
  if (embedded) {
    delete base.DATABASE_URL;
    dataRoot = await mkdtemp(path.join(tmpdir(), 'vigil-bench-'));
    // PostgreSQL runs as its own user, which must be able to enter the data root.
    await chmod(dataRoot, 0o755);
    base.VIGIL_DATA_DIR = dataRoot;
    base.EMBEDDED_PG_PORT = String(await freePort());
  }

  const launch = async (profile?: string): Promise<ChildServer> => {
    const port = await freePort();
    const flags = profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profile}`];
    return startChildServer({
      name: 'vigil',
      nodeArgs: [...flags, 'src/main.ts'],
      cwd: ROOT,
      env: { ...base, PORT: String(port) },
      port,
      readyPath: '/api/v1/events/health',
      readyTimeoutMs: 180_000,
    });
  };
  const stopChild = async (child: ChildServer): Promise<void> => {
    const code = await child.stop();
    if (code !== 0) throw new Error(`vigil exited with code ${code} after SIGTERM`);
  };

  let child = await launch(profileDir).catch(async (error: unknown) => {
    if (dataRoot !== null) {
      await stopLeftoverPostmaster(dataRoot);
      await rm(dataRoot, { recursive: true, force: true });
    }
    throw error;
  });
  const service: RestartableService = {
    get url() {
      return child.url;
    },
    get pid() {
      return child.pid;
    },
    embedded,
    restart: async (profile) => {
      await stopChild(child);
      child = await launch(profile);
    },
    stop: async () => {
      try {
        await stopChild(child);
      } finally {
        if (dataRoot !== null) {
          await stopLeftoverPostmaster(dataRoot);
          await rm(dataRoot, { recursive: true, force: true });
        } else if (external !== undefined) {
          const sql = postgres(external, { max: 1, onnotice: () => {} });
          await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          await sql.end({ timeout: 5 });
        }
      }
    },
  };
  return service;
}
