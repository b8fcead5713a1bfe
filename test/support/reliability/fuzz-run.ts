/**
 * One complete hostile-input run against a child service: generated HTTP requests, raw-socket
 * cases, a slowloris crowd and STOMP sessions; then the service must still answer health and
 * drain on SIGTERM with exit 0. Shared by `npm run bench:fuzz` and the test suite.
 */
import { freePort } from '../free-port.ts';
import type { RunDatabase } from '../run-databases.ts';
import { loadEndpoints, runHttpFuzz, type FuzzStats } from './fuzz-http.ts';
import { runRawCases, runSlowloris, type RawResult } from './fuzz-raw.ts';
import { runStompFuzz, type StompFuzzStats } from './fuzz-stomp.ts';
import { probeHealth } from './probes.ts';
import { spawnVigil, stopServer, type Exit } from '../service-process.ts';

export interface FuzzRunOptions {
  readonly seed: number;
  readonly requests: number;
  /** Replay these request seeds only (instead of `requests` from `seed`). */
  readonly replay?: readonly number[];
  readonly concurrency: number;
  readonly stompSessions: number;
  readonly slowMs: number;
  readonly slowlorisConnections: number;
  readonly slowlorisSeconds: number;
  readonly onProgress?: (done: number) => void;
}

export interface FuzzRunResult {
  readonly endpoints: number;
  readonly http: FuzzStats;
  readonly raw: readonly RawResult[];
  readonly rawHealthMaxMs: number;
  readonly slowloris: Awaited<ReturnType<typeof runSlowloris>> | null;
  readonly stomp: StompFuzzStats;
  /** Health at the end (200 expected), and the exit after SIGTERM. */
  readonly finalHealth: number;
  readonly exit: Exit;
  readonly rssStartKiB: number | null;
  readonly rssEndKiB: number | null;
  readonly seeds: { readonly from: number; readonly to: number };
}

const MAX_BODY_BYTES = 1024 * 1024;

export async function runFuzz(db: RunDatabase, options: FuzzRunOptions): Promise<FuzzRunResult> {
  const proc = await spawnVigil({
    port: await freePort(),
    env: { ...db.env, LOG_LEVEL: 'error', MAX_BODY_BYTES: String(MAX_BODY_BYTES) },
    forward: false,
    name: 'vigil(fuzz)',
  });
  try {
    const rssStartKiB = proc.rssKiB();
    const endpoints = await loadEndpoints(proc.url);
    const seeds =
      options.replay ?? Array.from({ length: options.requests }, (_, i) => options.seed + i);
    const http = await runHttpFuzz({
      baseUrl: proc.url,
      endpoints,
      seeds,
      concurrency: options.concurrency,
      timeoutMs: 20_000,
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    });
    const raw = await runRawCases(proc.port, proc.url, options.slowMs);
    const slowloris =
      options.slowlorisConnections > 0
        ? await runSlowloris(
            proc.port,
            proc.url,
            options.slowlorisConnections,
            options.slowlorisSeconds,
          )
        : null;
    const stomp = await runStompFuzz({
      wsUrl: `ws://127.0.0.1:${proc.port}/ws`,
      seeds: Array.from({ length: options.stompSessions }, (_, i) => options.seed + i),
      concurrency: 4,
    });
    const finalHealth = (await probeHealth(proc.url)).status;
    const rssEndKiB = proc.rssKiB();
    const exit = await stopServer(proc);
    return {
      endpoints: endpoints.length,
      http,
      raw: raw.results,
      rawHealthMaxMs: raw.healthMaxMs,
      slowloris,
      stomp,
      finalHealth,
      exit,
      rssStartKiB,
      rssEndKiB,
      seeds: { from: seeds[0] ?? options.seed, to: seeds[seeds.length - 1] ?? options.seed },
    };
  } finally {
    if (proc.exit() === null) await stopServer(proc);
  }
}

/** Everything that breaks the rules of the issue: 5xx, bad 4xx bodies, hangs, crashes. */
export function fuzzProblems(r: FuzzRunResult): string[] {
  const problems: string[] = [];
  for (const f of r.http.failures) {
    // Known and reported: uWS writes a body after HEAD answers, which Node's client cannot parse.
    if (
      f.request.startsWith('HEAD ') &&
      f.problems.every((p) => p.includes('HPE_INVALID_CONSTANT'))
    )
      continue;
    problems.push(`HTTP seed ${f.seed}: ${f.problems.join('; ')} :: ${f.request}`);
  }
  for (const c of r.raw) for (const p of c.problems) problems.push(`raw '${c.name}': ${p}`);
  for (const f of r.stomp.failures) problems.push(`STOMP seed ${f.seed}: ${f.problem}`);
  if (r.finalHealth !== 200) problems.push(`health answered ${r.finalHealth} at the end`);
  if (r.exit.code !== 0)
    problems.push(`exit ${r.exit.code} (signal ${r.exit.signal}) after SIGTERM`);
  if (r.slowloris !== null && r.slowloris.healthFailures > 0)
    problems.push(`${r.slowloris.healthFailures} health probes failed during slowloris`);
  return problems;
}

/** HEAD requests whose answer carried a body (counted apart: a reported protocol bug). */
export const headWithBody = (r: FuzzRunResult): number =>
  r.http.failures.filter(
    (f) =>
      f.request.startsWith('HEAD ') && f.problems.every((p) => p.includes('HPE_INVALID_CONSTANT')),
  ).length;
