/**
 * Crash safety: producers ingest at full speed, the service is killed with SIGKILL mid-stream
 * (alone, or with its embedded PostgreSQL), restarted on the same data, and every 202 is checked.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../free-port.ts';
import {
  childrenOf,
  isAlive,
  isPostgres,
  postmasterPid,
  rewritePostmasterPid,
  waitPostgresGone,
} from '../processes.ts';
import { embeddedDataDir, externalDatabase, type RunDatabase } from '../run-databases.ts';
import { spawnVigil, stopServer, type Exit } from '../service-process.ts';
import { checkStored, startIngestLoad, type StoreCheck } from './ingest-load.ts';

/**
 * What dies: the service alone (an embedded PostgreSQL keeps running and is adopted), the service
 * with its PostgreSQL (a stale postmaster.pid is left), or both with the stale pid file naming a
 * live process that is not PostgreSQL (a reused pid, as after a container restart).
 */
export type CrashKind = 'service' | 'service+postgres' | 'service+postgres, pid reused';

export interface CrashOptions {
  /** External PostgreSQL URL, or null for the service's embedded PostgreSQL. */
  readonly databaseUrl: string | null;
  readonly kind: CrashKind;
  readonly events: number;
  readonly connections: number;
  /** SIGKILL once this many events are acknowledged. */
  readonly killAtAcked: number;
  readonly env?: Readonly<Record<string, string>>;
}

export interface CrashResult {
  readonly label: string;
  readonly ackedBeforeKill: number;
  readonly check: StoreCheck;
  /** From the kill to the restarted service's first healthy answer. */
  readonly downMs: number;
  /** Embedded only: the restart reused the PostgreSQL left running. */
  readonly adopted: boolean | null;
  /** Embedded only: the restart found the stale postmaster.pid and started PostgreSQL anyway. */
  readonly staleCleared: boolean | null;
  /** The restarted service's exit after SIGTERM at the end. */
  readonly finalExit: Exit;
  readonly counts: ReadonlyMap<string, number>;
}

export async function runCrash(options: CrashOptions): Promise<CrashResult> {
  const db: RunDatabase =
    options.databaseUrl === null ? await embeddedDataDir() : externalDatabase(options.databaseUrl);
  const label = `${db.kind}: kill -9 ${options.kind}`;
  const tag = `crash-${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  const env = { ...db.env, ...options.env };
  let sleeper: ReturnType<typeof spawn> | null = null;
  try {
    const first = await spawnVigil({ port, env, name: 'vigil#1' });
    const load = startIngestLoad({
      url: first.url,
      connections: options.connections,
      total: options.events,
      tag,
      retryRefused: true,
      timeoutMs: 15_000,
    });
    while (load.acked() < options.killAtAcked && load.settled() < options.events) await sleep(2);
    const ackedBeforeKill = load.acked();
    let postgresPids: number[] = [];
    if (db.pgDataDir !== null) {
      const pid = postmasterPid(db.pgDataDir);
      if (pid !== null) postgresPids = [pid, ...childrenOf(pid)];
    }
    const killedAt = Date.now();
    if (options.kind === 'service') first.signal('SIGKILL');
    else first.signalGroup('SIGKILL');
    await first.exited;
    if (options.kind !== 'service') await waitPostgresGone(postgresPids);
    if (options.kind === 'service+postgres, pid reused' && db.pgDataDir !== null) {
      // A live process that is not PostgreSQL now holds the pid the file names.
      sleeper = spawn('sleep', ['600'], { stdio: 'ignore' });
      if (sleeper.pid !== undefined) await rewritePostmasterPid(db.pgDataDir, sleeper.pid);
    }
    const staleFile =
      db.pgDataDir !== null && options.kind !== 'service' && postmasterPid(db.pgDataDir) !== null;

    const second = await spawnVigil({ port, env, name: 'vigil#2', readyTimeoutMs: 60_000 });
    const downMs = Date.now() - killedAt;
    const report = await load.done;
    const check = await checkStored(db.sql, tag, report);
    const adopted =
      db.kind === 'embedded' ? second.logged(/reusing the embedded PostgreSQL/) : null;
    const finalExit = await stopServer(second);
    let staleCleared: boolean | null = null;
    if (db.pgDataDir !== null && options.kind !== 'service') {
      // Cleared: the restart ran a PostgreSQL of its own, which its SIGTERM stopped.
      const after = postmasterPid(db.pgDataDir);
      staleCleared = staleFile && (after === null || !isPostgres(after));
    }
    return {
      label,
      ackedBeforeKill,
      check,
      downMs,
      adopted,
      staleCleared,
      finalExit,
      counts: report.counts,
    };
  } finally {
    if (sleeper?.pid !== undefined && isAlive(sleeper.pid)) sleeper.kill('SIGKILL');
    await db.cleanup();
  }
}
