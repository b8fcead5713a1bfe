/**
 * The one way to run a server under test as a child process (`node --import tsx <script>`): Vigil
 * (`src/main.ts`) for the reliability tests and every bench, and the benches' bare uWS floor. The
 * child is never in the caller's own process, so its threads compete only with the load generators.
 * With `processGroup` it leads a process group of its own, so a fault can hit it alone (kill -9
 * the pid) or with its embedded PostgreSQL and that server's backends (the group).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.ts';
import { TEST_AUTH_ENV } from './keys.ts';
import { rssOf } from './processes.ts';

/** This checkout: the directory the service runs from unless a caller names another copy. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const HEALTH = '/api/v1/events/health';

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Epoch ms of the exit. */
  readonly at: number;
}

export interface ServerProcess {
  readonly pid: number;
  readonly port: number;
  readonly url: string;
  /** Resolves when the process has exited, however. */
  readonly exited: Promise<Exit>;
  exit(): Exit | null;
  /** Sends `signal` to the server process alone. */
  signal(signal: NodeJS.Signals): void;
  /**
   * Sends `signal` to its whole group (the service, its embedded PostgreSQL and that server's
   * backends) when it leads one; to the process alone otherwise.
   */
  signalGroup(signal: NodeJS.Signals): void;
  /** The exit, or null if it is still running after `timeoutMs`. */
  waitExit(timeoutMs: number): Promise<Exit | null>;
  /** Resident set of the server process (all its threads), in KiB; null once it has exited. */
  rssKiB(): number | null;
  /** True when a line of its output so far matches. */
  logged(pattern: RegExp): boolean;
  /** The last lines of its output, for error messages. */
  tail(lines?: number): string;
}

export interface ServerOptions {
  /** Shown in messages and as the prefix of forwarded output. */
  readonly name: string;
  /** The script to run, relative to `cwd`. */
  readonly script: string;
  /** Node flags before the script (e.g. --cpu-prof). */
  readonly nodeArgs?: readonly string[];
  readonly cwd: string;
  /** The child's whole environment (PORT is set here). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly port: number;
  /** GET HEALTH until it answers 200, at most this long. */
  readonly readyTimeoutMs: number;
  /** Forward output lines at warn and above (and non-pino lines) to our stderr (default true). */
  readonly forward?: boolean;
  /** Lead a process group of its own (see the module comment). */
  readonly processGroup?: boolean;
  /** Run the script through tsx (default), or as plain JavaScript (a compiled build). */
  readonly tsx?: boolean;
}

const live = new Map<ChildProcess, boolean>();
let hooked = false;

/** If the bench or test dies, take its servers (and, in a group, their databases) with it. */
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const [child, group] of live) {
      try {
        if (child.pid !== undefined) process.kill(group ? -child.pid : child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
}

/** pino level of a line (`{"level":40,...`), null for other output. */
const levelOf = (line: string): number | null => {
  const level = /^\{"level":(\d+)/.exec(line)?.[1];
  return level === undefined ? null : Number(level);
};

const HEAD_LINES = 300;
const TAIL_LINES = 500;
/** Forwarded lines are cut here (a pino error line with a stack runs to kilobytes). */
const MAX_SHOWN = 300;
/** A failing server repeats itself: forward this many lines, count the rest, say so at its exit. */
const FORWARD_MAX = 15;

/** Spawns the server and waits until HEALTH answers 200 (kills it and throws if it never does). */
export async function spawnServer(options: ServerOptions): Promise<ServerProcess> {
  hookExit();
  const { name } = options;
  const group = options.processGroup === true;
  const child = spawn(
    process.execPath,
    [
      ...(options.tsx === false ? [] : ['--import', 'tsx']),
      ...(options.nodeArgs ?? []),
      options.script,
    ],
    {
      cwd: options.cwd,
      env: { ...options.env, PORT: String(options.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: group,
    },
  );
  let spawnError: Error | null = null;
  // 'error' alone (no 'exit') when the process could not be spawned at all (bad cwd, ...).
  child.once('error', (error) => (spawnError = error));
  const pid = child.pid;
  if (pid === undefined) {
    await new Promise((resolve) => setImmediate(resolve));
    throw new Error(`${name} could not be started: ${spawnError ?? 'no pid'}`);
  }
  live.set(child, group);
  const head: string[] = [];
  const tail: string[] = [];
  let partial = '';
  let forwarded = 0;
  let unforwarded = 0;
  const onChunk = (chunk: Buffer): void => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      if (head.length < HEAD_LINES) head.push(line);
      else {
        tail.push(line);
        if (tail.length > TAIL_LINES) tail.shift();
      }
      const level = levelOf(line);
      if (options.forward !== false && (level === null || level >= 40)) {
        if (forwarded++ < FORWARD_MAX)
          process.stderr.write(`  [${name} ${pid}] ${line.slice(0, MAX_SHOWN)}\n`);
        else unforwarded++;
      }
    }
  };
  child.stdout.on('data', onChunk);
  child.stderr.on('data', onChunk);
  let exit: Exit | null = null;
  const exited = new Promise<Exit>((resolve) => {
    child.on('exit', (code, signal) => {
      exit = { code, signal, at: Date.now() };
      if (unforwarded > 0)
        process.stderr.write(
          `  [${name} ${pid}] (${unforwarded} more warn/error lines not shown)\n`,
        );
      live.delete(child);
      resolve(exit);
    });
  });
  const proc: ServerProcess = {
    pid,
    port: options.port,
    url: `http://127.0.0.1:${options.port}`,
    exited,
    exit: () => exit,
    signal: (signal) => {
      if (exit === null) process.kill(pid, signal);
    },
    signalGroup: (signal) => {
      try {
        process.kill(group ? -pid : pid, signal);
      } catch {
        // The group is empty already.
      }
    },
    waitExit: async (timeoutMs) => {
      const timer = sleep(timeoutMs, null, { ref: false });
      return Promise.race([exited, timer]);
    },
    rssKiB: () => (exit === null ? rssOf(pid) : null),
    logged: (pattern) => [...head, ...tail].some((line) => pattern.test(line)),
    tail: (lines = 40) => [...head, ...tail].slice(-lines).join('\n'),
  };
  try {
    await waitHealthy(proc, options.readyTimeoutMs);
  } catch (error) {
    proc.signalGroup('SIGKILL');
    await exited;
    throw new Error(`${name} did not become healthy: ${(error as Error).message}\n${proc.tail()}`, {
      cause: error,
    });
  }
  return proc;
}

/** GET health until it answers 200; fails early if the process exits. */
export async function waitHealthy(proc: ServerProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const exit = proc.exit();
    if (exit !== null) throw new Error(`exited (code ${exit.code}, signal ${exit.signal})`);
    try {
      const res = await fetch(proc.url + HEALTH, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  throw new Error(`not healthy after ${timeoutMs} ms`);
}

/** SIGTERM, then the exit (SIGKILL to the group after `graceMs`). */
export async function stopServer(proc: ServerProcess, graceMs = 30_000): Promise<Exit> {
  if (proc.exit() === null) proc.signal('SIGTERM');
  const exit = await proc.waitExit(graceMs);
  if (exit !== null) return exit;
  proc.signalGroup('SIGKILL');
  return proc.exited;
}

export interface VigilOptions {
  /** Service variables (database, tuning); they win over the defaults below. */
  readonly env: Readonly<Record<string, string>>;
  /** Default: a free port. A restart passes the port of the process it replaces. */
  readonly port?: number;
  /**
   * Pass the caller's whole environment through (benches: DATABASE_URL, LOG_LEVEL and service
   * variables set on the command line). Default: a clean environment with PATH, HOME, LOG_LEVEL
   * info and alert delivery to this machine only, so a test runs the same on every machine.
   */
  readonly inheritEnv?: boolean;
  /** Write V8 CPU profiles (front thread and worker threads) into this directory. */
  readonly profileDir?: string;
  /** Default 180 s: the first start of an embedded PostgreSQL runs initdb. */
  readonly readyTimeoutMs?: number;
  readonly forward?: boolean;
  /** Default true: the faults of the reliability runs signal the group. */
  readonly processGroup?: boolean;
  readonly name?: string;
  /** Another checkout of the service to run (default: this one). */
  readonly root?: string;
  /**
   * Run the compiled build (`dist/src/main.js`, which the caller has built with `npm run build`),
   * as `npm start` does, instead of the sources through tsx (default).
   */
  readonly compiled?: boolean;
}

/** Vigil (`src/main.ts`) on 127.0.0.1, ready when its health route answers. */
export async function spawnVigil(options: VigilOptions): Promise<ServerProcess> {
  const base: Record<string, string | undefined> =
    options.inheritEnv === true
      ? // info lines (start, shutdown) land in the error tail; only warn and above are forwarded.
        { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' }
      : {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: process.env.HOME ?? '/root',
          LOG_LEVEL: 'info',
          // Alerts of rules made by a run may only ever be delivered on this machine.
          NOTIFY_ALLOWED_HOSTS: '127.0.0.1',
          NOTIFY_ALLOW_PRIVATE: 'true',
        };
  // Tests and benches hold the test admin key, as a client holds its key.
  Object.assign(base, TEST_AUTH_ENV);
  const env: Record<string, string | undefined> = { ...base, ...options.env, HOST: '127.0.0.1' };
  // A service on an embedded database of its own must not find an outside one.
  if (options.env.DATABASE_URL === undefined) delete env.DATABASE_URL;
  const profile =
    options.profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`];
  const proc = await spawnServer({
    name: options.name ?? 'vigil',
    script:
      options.compiled === true ? path.join('dist', 'src', 'main.js') : path.join('src', 'main.ts'),
    tsx: options.compiled !== true,
    nodeArgs: profile,
    cwd: options.root ?? ROOT,
    env,
    port: options.port ?? (await freePort()),
    readyTimeoutMs: options.readyTimeoutMs ?? 180_000,
    ...(options.forward === undefined ? {} : { forward: options.forward }),
    processGroup: options.processGroup ?? true,
  });
  const dataDir = env.DATABASE_URL === undefined ? env.VIGIL_DATA_DIR : undefined;
  if (dataDir === undefined) return proc;
  // The embedded PostgreSQL leads a process group of its own (src/db/postgres-process.ts): a
  // fault to the service's group reaches it, and its backends, through that group.
  return {
    ...proc,
    signalGroup: (signal) => {
      proc.signalGroup(signal);
      signalPostmasterGroup(path.resolve(options.root ?? ROOT, dataDir, 'pg'), signal);
    },
  };
}

function signalPostmasterGroup(pgDataDir: string, signal: NodeJS.Signals): void {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(path.join(pgDataDir, 'postmaster.pid'), 'utf8'), 10);
  } catch {
    return; // No server running there.
  }
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Gone already.
  }
}
