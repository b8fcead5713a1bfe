/**
 * OS processes by pid, read from /proc: is one alive, its resident set, its children, and the
 * embedded PostgreSQL's postmaster (found by its pid file) that a dead service may leave behind.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

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

/** True when `pid` is a live process whose command name is postgres. */
export function isPostgres(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
  } catch {
    return false;
  }
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

/**
 * Fast shutdown (SIGINT) of the postmaster named by the pid file, if it is a live postgres: a
 * service that died cannot stop its embedded PostgreSQL itself.
 */
export async function stopPostmaster(dataDir: string): Promise<void> {
  const pid = postmasterPid(dataDir);
  if (pid === null || !isPostgres(pid)) return;
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + 30_000;
  while (isAlive(pid) && Date.now() < deadline) await sleep(50);
}

/** Waits until no process is left from a postmaster we killed (its backends exit on their own). */
export async function waitPostgresGone(pids: readonly number[], timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(isAlive) && Date.now() < deadline) await sleep(50);
}
