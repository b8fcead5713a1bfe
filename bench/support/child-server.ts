/**
 * A server under test as a child process (never in the bench's own process): spawn it on a free
 * port, wait until its health route answers 200, and stop it with SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ChildServerOptions {
  /** Shown in messages and as the prefix of forwarded output. */
  readonly name: string;
  /** Node flags and the script, run with `node --import tsx`. */
  readonly nodeArgs: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly port: number;
  /** GET this path until it answers 200. */
  readonly readyPath: string;
  readonly readyTimeoutMs: number;
}

export interface ChildServer {
  readonly url: string;
  readonly pid: number;
  /**
   * SIGTERM, then waits for the exit (SIGKILL after `graceMs`); resolves with the exit code.
   * Rejects if the child had already exited: the bench's numbers would be meaningless.
   */
  stop(graceMs?: number): Promise<number | null>;
}

const TAIL_LINES = 40;
/** Forwarded lines are cut here (a pino error line with a stack runs to kilobytes). */
const MAX_SHOWN = 300;
/** A failing server repeats itself: forward this many warnings and errors, then stay quiet. */
const MAX_FORWARDED = 20;

/** A port nothing listens on right now (the kernel's pick, released at once). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

/** A pino line below warn (level 40) is kept for error messages but not forwarded. */
const quiet = (line: string): boolean => {
  const level = /^\{"level":(\d+)/.exec(line)?.[1];
  return level !== undefined && Number(level) < 40;
};

/** Forwards the child's first notable lines to our stderr; keeps the last lines for errors. */
function follow(child: ChildProcess, name: string, tail: string[]): void {
  let forwarded = 0;
  const onChunk = (chunk: Buffer): void => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      const shown = line.length > MAX_SHOWN ? `${line.slice(0, MAX_SHOWN)}…` : line;
      tail.push(shown);
      if (tail.length > TAIL_LINES) tail.shift();
      if (quiet(line) || forwarded > MAX_FORWARDED) continue;
      forwarded++;
      process.stderr.write(
        forwarded > MAX_FORWARDED
          ? `  [${name}] … further warnings and errors not shown\n`
          : `  [${name}] ${shown}\n`,
      );
    }
  };
  child.stdout?.on('data', onChunk);
  child.stderr?.on('data', onChunk);
}

async function waitReady(
  url: string,
  child: ChildProcess,
  spawnError: () => Error | null,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const failed = spawnError();
    if (failed !== null) throw new Error(`could not be started: ${failed.message}`);
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`exited (${child.exitCode ?? child.signalCode}) before it was ready`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  throw new Error(`not ready after ${timeoutMs} ms`);
}

export async function startChildServer(options: ChildServerOptions): Promise<ChildServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...options.nodeArgs], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail: string[] = [];
  follow(child, options.name, tail);
  let spawnError: Error | null = null;
  // 'exit', or 'error' alone when the process could not be spawned at all (bad cwd, ...).
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', (error) => {
      spawnError = error;
      resolve(null);
    });
  });
  const url = `http://127.0.0.1:${options.port}`;
  try {
    await waitReady(url + options.readyPath, child, () => spawnError, options.readyTimeoutMs);
  } catch (error) {
    if (spawnError === null && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
    }
    await exited;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`${options.name} ${reason}; its last output:\n${tail.join('\n')}`, {
      cause: error,
    });
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${options.name} has no pid`);

  let stopping: Promise<number | null> | null = null;
  const stop = async (graceMs = 30_000): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) {
      // Only our stop() may end it: anything else means the numbers measured a dying server.
      throw new Error(
        `${options.name} (pid ${pid}) exited by itself during the bench ` +
          `(code ${child.exitCode}, signal ${child.signalCode}); its last output:\n${tail.join('\n')}`,
      );
    }
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return { url, pid, stop: (graceMs) => (stopping ??= stop(graceMs)) };
}
