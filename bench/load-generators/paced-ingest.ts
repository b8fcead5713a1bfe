/**
 * Paced ingest from the bench's side: forks paced-ingest-process.ts (a second load generator in its
 * own process), reads its counters at the edges of a measurement window, and stops it.
 */
import type { EventSpread } from './event-mix.ts';
import { forkLoadChild, type LoadChild } from './load-child.ts';

export interface PacedIngestOptions {
  readonly port: number;
  /** Events per second. */
  readonly rate: number;
  /** Events per request: 1 posts to /api/v1/events, more to /api/v1/events/batch. */
  readonly batch: number;
  /** Keep-alive connections; one request in flight on each. */
  readonly connections: number;
  /** Stops by itself after this long, whatever the parent does. */
  readonly maxSec: number;
  readonly spread: EventSpread;
  readonly seed: number;
}

export type PacedIngestIn = { readonly type: 'counters' } | { readonly type: 'stop' };

export interface PacedCounters {
  readonly type: 'counters';
  /** Epoch ms when read. */
  readonly at: number;
  /** Events acknowledged (202); the other counts are requests. */
  readonly ok: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly dropped: number;
  readonly sent: number;
}

export interface PacedDone {
  readonly type: 'done';
  readonly seconds: number;
  readonly sent: number;
  /** Events acknowledged (202); the other counts are requests. */
  readonly ok: number;
  readonly non2xx: number;
  readonly errors: number;
  /** Requests due but not sent: the generator fell more than 1 s behind. */
  readonly dropped: number;
  readonly unanswered: number;
  readonly statuses: Readonly<Record<string, number>>;
  readonly lastError: string;
  /** From each request's due time (includes waiting for a free connection). */
  readonly p50FromDueMs: number;
  readonly p99FromDueMs: number;
  /** From the moment the request was written. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** CPU the generator used, in % of one core. */
  readonly cpuPercent: number;
}

export type PacedIngestOut = { readonly type: 'ready' } | PacedCounters | PacedDone;

/** What happened between two counter readings. */
export interface WindowRate {
  readonly seconds: number;
  readonly okPerSec: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly dropped: number;
}

export interface PacedIngest {
  readonly pid: number;
  counters(): Promise<PacedCounters>;
  /** Stops the generator; resolves with its totals once it has exited. */
  stop(): Promise<PacedDone>;
}

export const windowRate = (from: PacedCounters, to: PacedCounters): WindowRate => {
  const seconds = (to.at - from.at) / 1000;
  return {
    seconds,
    okPerSec: (to.ok - from.ok) / seconds,
    non2xx: to.non2xx - from.non2xx,
    errors: to.errors - from.errors,
    dropped: to.dropped - from.dropped,
  };
};

export async function startPacedIngest(options: PacedIngestOptions): Promise<PacedIngest> {
  const child: LoadChild<PacedIngestIn, PacedIngestOut> = forkLoadChild(
    './paced-ingest-process.ts',
    options,
    'paced ingest',
  );
  await child.next('ready', 60_000);
  let stopping: Promise<PacedDone> | null = null;
  return {
    pid: child.pid,
    counters: async () => {
      const reply = child.next('counters', 10_000);
      child.send({ type: 'counters' });
      return reply;
    },
    stop: () =>
      (stopping ??= (async () => {
        const done = child.next('done', 30_000);
        child.send({ type: 'stop' });
        const result = await done;
        await child.exited;
        return result;
      })()),
  };
}
