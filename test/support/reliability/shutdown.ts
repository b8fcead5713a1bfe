/**
 * Graceful shutdown under load: SIGTERM while producers post at full speed. Every request ends as
 * 202 (must be stored), 503 SHUTTING_DOWN (must not be), or a connection error (in doubt); the
 * service must exit 0 within SHUTDOWN_GRACE_MS.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../free-port.ts';
import type { RunDatabase } from '../run-databases.ts';
import { checkStored, startIngestLoad, type StoreCheck } from './ingest-load.ts';
import { spawnVigil, type Exit } from '../service-process.ts';
import { TEST_ADMIN_KEY } from '../keys.ts';

export interface ShutdownOptions {
  readonly connections: number;
  /** Load before the signal. */
  readonly loadMs: number;
  readonly graceMs: number;
  /** Events per request (1: /events, more: /events/batch). */
  readonly batchSize?: number;
  /** Send a second SIGTERM this long after the first (forces exit 1). */
  readonly secondSignalAfterMs?: number;
  /**
   * Keep one client mid-body through the signal (headers and part of a body, then silence): it
   * must not hold the drain (it is answered 503 SHUTTING_DOWN or dropped).
   */
  readonly holdRequestOpen?: boolean;
  /** Called just before the first SIGTERM (e.g. to freeze the database), and after the exit. */
  readonly beforeSignal?: () => void | Promise<void>;
  readonly afterExit?: () => void | Promise<void>;
}

export interface ShutdownResult {
  readonly exit: Exit;
  /** From SIGTERM to the process's exit. */
  readonly exitMs: number;
  readonly counts: ReadonlyMap<string, number>;
  readonly check: StoreCheck;
  /** Requests answered 202 after the signal (in flight or accepted before the gate closed). */
  readonly ackedAfterSignal: number;
  readonly shuttingDown503: number;
}

export async function runShutdown(
  db: RunDatabase,
  options: ShutdownOptions,
): Promise<ShutdownResult> {
  const tag = `shutdown-${randomBytes(4).toString('hex')}`;
  const proc = await spawnVigil({
    port: await freePort(),
    env: { ...db.env, SHUTDOWN_GRACE_MS: String(options.graceMs) },
    name: 'vigil(shutdown)',
  });
  let signalledAt = Number.POSITIVE_INFINITY;
  let ackedAfterSignal = 0;
  const load = startIngestLoad({
    url: proc.url,
    connections: options.connections,
    tag,
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
    timeoutMs: options.graceMs + 10_000,
    // After the listener closes every request is refused: do not spin through sequence numbers.
    backoffMs: 20,
    onOutcome: (_seq, outcome, startedAt, ms) => {
      if (outcome.kind === 'acked' && startedAt + ms >= signalledAt) ackedAfterSignal++;
    },
  });
  await sleep(options.loadMs);
  let held: net.Socket | null = null;
  if (options.holdRequestOpen === true) {
    held = net.connect(proc.port, '127.0.0.1');
    held.on('error', () => {});
    held.write(
      `POST /api/v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_ADMIN_KEY}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"eventType":',
    );
    await sleep(200);
  }
  await options.beforeSignal?.();
  signalledAt = Date.now();
  proc.signal('SIGTERM');
  if (options.secondSignalAfterMs !== undefined) {
    await sleep(options.secondSignalAfterMs);
    proc.signal('SIGTERM');
  }
  const exit = (await proc.waitExit(options.graceMs + 15_000)) ?? (await forceKill());
  held?.destroy();
  await options.afterExit?.();
  const report = await load.stop();
  const check = await checkStored(db.sql, tag, report);
  let shuttingDown503 = 0;
  for (const outcome of report.outcomes.values()) {
    if (outcome.kind === 'answered' && outcome.code === 'SHUTTING_DOWN') shuttingDown503++;
  }
  return {
    exit,
    exitMs: exit.at - signalledAt,
    counts: report.counts,
    check,
    ackedAfterSignal,
    shuttingDown503,
  };

  async function forceKill(): Promise<Exit> {
    proc.signalGroup('SIGKILL');
    const exit = await proc.exited;
    return { ...exit, code: -1 };
  }
}
