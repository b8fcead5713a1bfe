/**
 * The driver of bench:fanout: N STOMP sessions on /topic/metrics (their own process) and a c=50
 * ingest. The ingest rounds alternate between the sessions unsubscribed and subscribed, so the
 * fan-out's cost to ingest is read between neighbouring rounds, not between a first and a second
 * half of the run that the rest of a shared machine may load differently.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { num } from '../report/print-table.ts';
import { log, roundMedians, runLoad, type LoadRequest, type LoadSummary } from './run-load.ts';
import type { BenchService } from '../harness/bench-service.ts';
import { eventStream, type EventSpread } from './event-mix.ts';
import { seedBatches } from './service-calls.ts';
import {
  mergeWindows,
  startSubscribers,
  summariseSpreads,
  type SpreadSummary,
  type Subscribers,
  type SubscribersWindow,
} from './stomp-subscribers.ts';
import { threadCpuMs } from '../report/thread-cpu.ts';

export interface FanoutOptions {
  readonly sessions: number;
  /** autocannon connections of the ingest. */
  readonly connections: number;
  readonly rounds: number;
  readonly durationSec: number;
  readonly warmupSec: number;
  readonly idleSec: number;
  /** Events stored before the sessions open, so the snapshot has its full size. */
  readonly seedEvents: number;
  readonly seedBatch: number;
  readonly seedConnections: number;
  readonly spread: EventSpread;
  readonly targetSpreadMs: number;
}

export interface FanoutWindow {
  readonly spread: SpreadSummary;
  readonly window: SubscribersWindow;
  /** CPU of the service's front thread (which does every STOMP send) during the window. */
  readonly frontCpuMs: number;
}

export interface Fanout {
  readonly without: LoadSummary;
  readonly with: LoadSummary;
  readonly idle: FanoutWindow;
  readonly busy: FanoutWindow;
  readonly openMs: number;
  readonly sessions: number;
}

/** Distinct bodies the ingest cycles through. */
const BODIES = 1000;
/** Stragglers of the last tick of a window still count. */
const WINDOW_GRACE_MS = 1500;

function ingestRound(service: BenchService, o: FanoutOptions, name: string): Promise<LoadSummary> {
  const next = eventStream(o.spread, 0xfa17);
  const requests: LoadRequest[] = Array.from({ length: BODIES }, () => ({
    method: 'POST',
    path: '/api/v1/events',
    body: JSON.stringify(next()),
  }));
  return runLoad(
    {
      name,
      baseUrl: service.url,
      requests,
      connections: o.connections,
      pipelining: 1,
      expectedStatus: 202,
    },
    { rounds: 1, durationSec: o.durationSec, warmupSec: o.warmupSec },
  );
}

/** One-round summaries as one: medians over all rounds, sums of the counts. */
function combine(name: string, parts: readonly LoadSummary[], o: FanoutOptions): LoadSummary {
  const rounds = parts.flatMap((p) => p.rounds);
  const sum = (pick: (p: LoadSummary) => number): number =>
    parts.reduce((total, p) => total + pick(p), 0);
  return {
    name,
    connections: o.connections,
    pipelining: 1,
    rounds,
    ...roundMedians(rounds),
    non2xx: sum((p) => p.non2xx),
    errors: sum((p) => p.errors),
    total2xx: sum((p) => p.total2xx),
    totalUnanswered: sum((p) => p.totalUnanswered),
  };
}

interface Measured<T> {
  readonly result: T;
  readonly window: SubscribersWindow;
  readonly frontCpuMs: number;
}

async function measure<T>(
  service: BenchService,
  subscribers: Subscribers,
  during: () => Promise<T>,
): Promise<Measured<T>> {
  subscribers.windowStart();
  const cpuFrom = await threadCpuMs(service.pid);
  const result = await during();
  const frontCpuMs = (await threadCpuMs(service.pid)) - cpuFrom;
  return { result, window: await subscribers.windowEnd(WINDOW_GRACE_MS), frontCpuMs };
}

function fanoutWindow(parts: readonly Measured<unknown>[], o: FanoutOptions): FanoutWindow {
  const window = mergeWindows(parts.map((p) => p.window));
  return {
    spread: summariseSpreads(window, o.sessions, o.targetSpreadMs),
    window,
    frontCpuMs: parts.reduce((sum, p) => sum + p.frontCpuMs, 0),
  };
}

export async function runFanout(service: BenchService, o: FanoutOptions): Promise<Fanout> {
  if (o.seedEvents > 0) {
    const seed = eventStream(o.spread, 0x5eed);
    await seedBatches(service.url, o.seedEvents, o.seedBatch, o.seedConnections, seed);
  }
  log(`opening ${num(o.sessions)} STOMP sessions`);
  const subscribers = await startSubscribers({
    url: `${service.url.replace(/^http/, 'ws')}/ws`,
    sessions: o.sessions,
    openConcurrency: 50,
  });
  try {
    const { sessions, openMs } = subscribers.ready;
    log(`${num(sessions)} sessions subscribed in ${num(openMs)} ms`);
    const idle = await measure(service, subscribers, () => sleep(o.idleSec * 1000));
    const without: LoadSummary[] = [];
    const busy: Array<Measured<LoadSummary>> = [];
    const base = `ingest c=${o.connections}`;
    for (let round = 1; round <= o.rounds; round++) {
      const of = `(${round}/${o.rounds})`;
      // The round's warm-up leaves the UNSUBSCRIBEs ample time to take effect.
      subscribers.unsubscribe();
      without.push(await ingestRound(service, o, `${base}, no subscriptions ${of}`));
      // Every SUBSCRIBE is answered with the current snapshot at once: that burst is no tick.
      await subscribers.subscribe();
      busy.push(
        await measure(service, subscribers, () =>
          ingestRound(service, o, `${base}, ${num(o.sessions)} subscribers ${of}`),
        ),
      );
    }
    return {
      without: combine(`${base}, ${num(sessions)} sessions unsubscribed`, without, o),
      with: combine(
        `${base}, ${num(sessions)} subscribers`,
        busy.map((b) => b.result),
        o,
      ),
      idle: fanoutWindow([idle], o),
      busy: fanoutWindow(busy, o),
      openMs,
      sessions,
    };
  } finally {
    await subscribers.close();
  }
}
