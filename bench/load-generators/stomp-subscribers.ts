/**
 * STOMP fan-out from the bench's side: forks stomp-subscribers-process.ts (N sessions in one
 * process, subscribed to /topic/metrics), opens measurement windows and reads per-tick spreads.
 */
import { forkLoadChild, type LoadChild } from './load-child.ts';

export interface SubscribersOptions {
  readonly url: string;
  readonly sessions: number;
  /** Sessions being opened at once. */
  readonly openConcurrency: number;
}

export type SubscribersIn =
  | { readonly type: 'window-start' }
  | { readonly type: 'unsubscribe' }
  | { readonly type: 'subscribe' }
  | { readonly type: 'window-end'; readonly graceMs: number }
  | { readonly type: 'close' };

/** One broadcast tick as the sessions saw it. */
export interface TickSpread {
  /** Epoch ms of the first session's receipt. */
  readonly first: number;
  /** Last receipt minus first receipt, ms. */
  readonly spreadMs: number;
  /** Sessions that received this tick. */
  readonly receivers: number;
  readonly bytes: number;
}

export interface SubscribersReady {
  readonly type: 'ready';
  readonly sessions: number;
  readonly openMs: number;
}

export interface SubscribersWindow {
  readonly type: 'window';
  readonly ticks: readonly TickSpread[];
  /** Sessions open at the end of the window. */
  readonly openSessions: number;
  /** Close codes of sessions that ended during the window, by code. */
  readonly closes: Readonly<Record<string, number>>;
  readonly errorFrames: number;
  /** CPU the subscriber process used during the window, % of one core. */
  readonly cpuPercent: number;
  readonly windowMs: number;
}

export type SubscribersOut =
  | SubscribersReady
  | SubscribersWindow
  | { readonly type: 'subscribed' }
  | { readonly type: 'closed' };

export interface Subscribers {
  readonly pid: number;
  readonly ready: SubscribersReady;
  windowStart(): void;
  /** Every session sends UNSUBSCRIBE; the service acts on it within milliseconds. */
  unsubscribe(): void;
  /** Every session sends SUBSCRIBE; resolves once each has its snapshot (sent at once). */
  subscribe(): Promise<void>;
  /** Ends the window; ticks that began inside it are reported after `graceMs` for stragglers. */
  windowEnd(graceMs: number): Promise<SubscribersWindow>;
  close(): Promise<void>;
}

export async function startSubscribers(options: SubscribersOptions): Promise<Subscribers> {
  const child: LoadChild<SubscribersIn, SubscribersOut> = forkLoadChild(
    './stomp-subscribers-process.ts',
    options,
    'stomp subscribers',
  );
  const ready = await child.next('ready', 180_000);
  let closing: Promise<void> | null = null;
  return {
    pid: child.pid,
    ready,
    windowStart: () => child.send({ type: 'window-start' }),
    unsubscribe: () => child.send({ type: 'unsubscribe' }),
    subscribe: async () => {
      const done = child.next('subscribed', 60_000);
      child.send({ type: 'subscribe' });
      await done;
    },
    windowEnd: async (graceMs) => {
      const reply = child.next('window', graceMs + 60_000);
      child.send({ type: 'window-end', graceMs });
      return reply;
    },
    close: () =>
      (closing ??= (async () => {
        child.send({ type: 'close' });
        await child.next('closed', 30_000).catch(() => child.kill());
        await child.exited;
      })()),
  };
}

/** Several windows as one: their ticks, closes and ERROR frames, and their CPU over their time. */
export function mergeWindows(windows: readonly SubscribersWindow[]): SubscribersWindow {
  const windowMs = windows.reduce((sum, w) => sum + w.windowMs, 0);
  const closes: Record<string, number> = {};
  for (const w of windows) {
    for (const [code, n] of Object.entries(w.closes)) closes[code] = (closes[code] ?? 0) + n;
  }
  return {
    type: 'window',
    ticks: windows.flatMap((w) => w.ticks),
    openSessions: windows.at(-1)?.openSessions ?? 0,
    closes,
    errorFrames: windows.reduce((sum, w) => sum + w.errorFrames, 0),
    cpuPercent:
      windows.reduce((sum, w) => sum + w.cpuPercent * w.windowMs, 0) / Math.max(1, windowMs),
    windowMs,
  };
}

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

export interface SpreadSummary {
  readonly ticks: number;
  readonly minReceivers: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Ticks that reached every session within `withinMs`. */
  readonly ticksOnTime: number;
  readonly snapshotBytes: number;
}

export function summariseSpreads(
  window: SubscribersWindow,
  sessions: number,
  withinMs: number,
): SpreadSummary {
  const spreads = window.ticks.map((t) => t.spreadMs).sort((a, b) => a - b);
  return {
    ticks: window.ticks.length,
    minReceivers: Math.min(...window.ticks.map((t) => t.receivers)),
    p50Ms: percentile(spreads, 50),
    p99Ms: percentile(spreads, 99),
    maxMs: spreads.at(-1) ?? Number.NaN,
    ticksOnTime: window.ticks.filter((t) => t.receivers === sessions && t.spreadMs <= withinMs)
      .length,
    snapshotBytes: Math.max(0, ...window.ticks.map((t) => t.bytes)),
  };
}
