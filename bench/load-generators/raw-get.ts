/**
 * The lean GET load from the bench's side: forks raw-get-process.ts, lets it warm up, then takes
 * one reading per round and returns medians in the same shape as an autocannon run.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  log,
  median,
  roundMedians,
  type LoadOptions,
  type LoadSummary,
  type RoundStats,
} from './run-load.ts';
import { num } from '../report/print-table.ts';
import { forkLoadChild } from './load-child.ts';

export interface RawGetOptions {
  readonly port: number;
  readonly path: string;
  /** Keep-alive connections, one request in flight on each (closed loop, like autocannon's c). */
  readonly connections: number;
  /** Sends `Accept-Encoding: gzip`, as browsers do. */
  readonly gzip: boolean;
}

export type RawGetIn =
  { readonly type: 'start' } | { readonly type: 'end' } | { readonly type: 'stop' };

export type RawGetOut =
  | { readonly type: 'ready' }
  | ({
      readonly type: 'round';
      readonly ok: number;
      readonly cpuPercent: number;
      /** Its thread runnable but waiting for a CPU, % of the round (null: no schedstat). */
      readonly waitingPercent: number | null;
    } & RoundStats);

/** The lean client's rounds, its own CPU and its wait for one (medians, % of one core). */
export type RawGetSummary = LoadSummary & {
  readonly cpuPercent: number;
  readonly waitingPercent: number | null;
};

export async function runRawGet(
  name: string,
  options: RawGetOptions,
  load: LoadOptions,
): Promise<RawGetSummary> {
  const child = forkLoadChild<RawGetIn, RawGetOut>('./raw-get-process.ts', options, name);
  try {
    await child.next('ready', 60_000);
    await sleep(load.warmupSec * 1000);
    const rounds: Extract<RawGetOut, { type: 'round' }>[] = [];
    for (let i = 0; i < load.rounds; i++) {
      child.send({ type: 'start' });
      await sleep(load.durationSec * 1000);
      const reply = child.next('round', 10_000);
      child.send({ type: 'end' });
      const round = await reply;
      log(
        `${name}: round ${i + 1}/${load.rounds}: ${num(round.reqPerSec)} req/s, p50 ${num(round.p50Ms, 2)} ms, ` +
          `p99 ${num(round.p99Ms, 2)} ms, non-2xx ${round.non2xx}, errors ${round.errors}, client CPU ${num(round.cpuPercent)} %` +
          (round.waitingPercent === null ? '' : `, waiting ${num(round.waitingPercent)} %`),
      );
      rounds.push(round);
    }
    return {
      name,
      connections: options.connections,
      pipelining: 1,
      rounds,
      ...roundMedians(rounds),
      non2xx: rounds.reduce((n, r) => n + r.non2xx, 0),
      errors: rounds.reduce((n, r) => n + r.errors, 0),
      total2xx: rounds.reduce((n, r) => n + r.ok, 0),
      totalUnanswered: 0,
      cpuPercent: median(rounds.map((r) => r.cpuPercent)),
      waitingPercent: rounds.some((r) => r.waitingPercent === null)
        ? null
        : median(rounds.map((r) => r.waitingPercent ?? 0)),
    };
  } finally {
    child.send({ type: 'stop' });
    await child.exited;
  }
}
