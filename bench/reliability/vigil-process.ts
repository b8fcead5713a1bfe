/**
 * The real service as a child process (`node --import tsx src/main.ts`) in a process group of its
 * own, so a fault can hit it alone (kill -9 the pid) or with its embedded PostgreSQL (the group).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const HEALTH = '/api/v1/events/health';

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Epoch ms of the exit. */
  readonly at: number;
}

export interface VigilProcess {
  readonly pid: number;
  readonly port: number;
  readonly url: string;
  /** Resolves when the process has exited, however. */
  readonly exited: Promise<Exit>;
  exit(): Exit | null;
  /** Sends `signal` to the service process alone. */
  signal(signal: NodeJS.Signals): void;
  /** Sends `signal` to the whole group: the service and its embedded PostgreSQL with its backends. */
  signalGroup(signal: NodeJS.Signals): void;
  /** The exit, or null if it is still running after `timeoutMs`. */
  waitExit(timeoutMs: number): Promise<Exit | null>;
  /** Resident set of the service process (all its threads), in KiB; null once it has exited. */
  rssKiB(): number | null;
  /** True when a line of its output so far matches. */
  logged(pattern: RegExp): boolean;
  /** The last lines of its output, for error messages. */
  tail(lines?: number): string;
}

export interface SpawnOptions {
  readonly port: number;
  /** The service's variables; PORT and HOST are set here. */
  readonly env: Readonly<Record<string, string>>;
  readonly readyTimeoutMs?: number;
  /** Forward output lines at warn and above to our stderr (default true). */
  readonly forward?: boolean;
  readonly name?: string;
  /** Another checkout of the service to run (default: this one). */
  readonly root?: string;
}

const live = new Set<ChildProcess>();
let hooked = false;

/** If the bench or test dies, take its services (and their databases) with it. */
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const child of live) {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
}

/** VmRSS of a process from /proc, in KiB (null if it is gone). */
export function rssOf(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match === null ? null : Number(match[1]);
  } catch {
    return null;
  }
}

export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** pino level of a line (`{"level":40,...`), null for other output. */
const levelOf = (line: string): number | null => {
  const level = /^\{"level":(\d+)/.exec(line)?.[1];
  return level === undefined ? null : Number(level);
};

const HEAD_LINES = 300;
const TAIL_LINES = 500;
/** Warn and error lines forwarded per process; the rest are counted and summed up at its exit. */
const FORWARD_MAX = 15;

export async function spawnVigil(options: SpawnOptions): Promise<VigilProcess> {
  hookExit();
  const name = options.name ?? 'vigil';
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    LOG_LEVEL: 'info',
    // Alerts of rules made by a run may only ever be delivered on this machine.
    NOTIFY_ALLOWED_HOSTS: '127.0.0.1',
    ...options.env,
    PORT: String(options.port),
    HOST: '127.0.0.1',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('src', 'main.ts')], {
    cwd: options.root ?? ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  live.add(child);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${name}: spawn failed`);
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
          process.stderr.write(`  [${name} ${pid}] ${line.slice(0, 300)}\n`);
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
  const url = `http://127.0.0.1:${options.port}`;
  const proc: VigilProcess = {
    pid,
    port: options.port,
    url,
    exited,
    exit: () => exit,
    signal: (signal) => {
      if (exit === null) process.kill(pid, signal);
    },
    signalGroup: (signal) => {
      try {
        process.kill(-pid, signal);
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
    await waitHealthy(proc, options.readyTimeoutMs ?? 180_000);
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
export async function waitHealthy(proc: VigilProcess, timeoutMs: number): Promise<void> {
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
export async function stopVigil(proc: VigilProcess, graceMs = 30_000): Promise<Exit> {
  if (proc.exit() === null) proc.signal('SIGTERM');
  const exit = await proc.waitExit(graceMs);
  if (exit !== null) return exit;
  proc.signalGroup('SIGKILL');
  return proc.exited;
}
