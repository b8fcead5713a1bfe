/**
 * Database outage under load: our own embedded PostgreSQL is stopped (connections refused) or
 * frozen (SIGSTOP: it accepts nothing and answers nothing) while producers keep posting; answers,
 * latency, health and RSS are recorded per phase, then every 202 is checked in the table.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { freePort } from '../free-port.ts';
import { ownPostgres } from '../run-databases.ts';
import { checkStored, startIngestLoad, type Outcome, type StoreCheck } from './ingest-load.ts';
import {
  between,
  maxOf,
  probeHealth,
  rssSampler,
  startSampler,
  type HealthProbe,
  type Sample,
} from './probes.ts';
import { spawnVigil, stopServer, type Exit } from '../service-process.ts';

export type OutageMode = 'stop' | 'freeze';

export interface OutageOptions {
  readonly mode: OutageMode;
  readonly beforeMs: number;
  readonly outageMs: number;
  readonly afterMs: number;
  readonly connections: number;
  /** DB_QUERY_TIMEOUT_MS of the service: no request may take much longer. */
  readonly queryTimeoutMs: number;
  /** Requests per second offered (unlimited when absent). */
  readonly requestsPerSecond?: number;
}

export type Phase = 'before' | 'during' | 'after';

export interface PhaseStats {
  readonly phase: Phase;
  readonly requests: number;
  readonly accepted: number;
  readonly failed500: number;
  readonly refused503: number;
  readonly other: number;
  /** No answer within the client's timeout, or the connection dropped. */
  readonly noAnswer: number;
  readonly maxMs: number;
  readonly healthUp: number;
  readonly healthDown: number;
  readonly healthMaxMs: number;
  readonly rssMaxKiB: number | null;
}

export interface OutageResult {
  readonly mode: OutageMode;
  readonly phases: readonly PhaseStats[];
  /** From the database's return to the first 202, and to the first health UP. */
  readonly firstAckAfterMs: number | null;
  readonly firstUpAfterMs: number | null;
  readonly check: StoreCheck;
  readonly exit: Exit;
  readonly outcomeCounts: ReadonlyMap<string, number>;
  /** Client-side timeout used to call a request hung. */
  readonly hangLimitMs: number;
}

export async function runOutage(options: OutageOptions): Promise<OutageResult> {
  const pg = await ownPostgres();
  const tag = `outage-${randomBytes(4).toString('hex')}`;
  const hangLimitMs = options.queryTimeoutMs * 3 + 5_000;
  try {
    const proc = await spawnVigil({
      port: await freePort(),
      env: {
        DATABASE_URL: pg.url,
        DB_QUERY_TIMEOUT_MS: String(options.queryTimeoutMs),
        // The outage logs one error per failed operation; warn-level lines are enough here.
        LOG_LEVEL: 'fatal',
      },
      name: `vigil(outage ${options.mode})`,
    });
    const requests: { startedAt: number; outcome: Outcome; ms: number }[] = [];
    const load = startIngestLoad({
      url: proc.url,
      connections: options.connections,
      tag,
      timeoutMs: hangLimitMs,
      ...(options.requestsPerSecond === undefined
        ? {}
        : { requestsPerSecond: options.requestsPerSecond }),
      onOutcome: (_seq, outcome, startedAt, ms) => requests.push({ startedAt, outcome, ms }),
    });
    const health = startSampler<HealthProbe>(250, () => probeHealth(proc.url, hangLimitMs));
    const rss = rssSampler(proc, 500);
    const start = Date.now();
    await sleep(options.beforeMs);
    const downAt = Date.now();
    let frozen: number[] = [];
    if (options.mode === 'stop') await pg.stop();
    else frozen = pg.freeze();
    await sleep(Math.max(0, options.outageMs - (Date.now() - downAt)));
    if (options.mode === 'stop') await pg.start();
    else pg.thaw(frozen);
    const upAt = Date.now();
    await sleep(options.afterMs);
    const end = Date.now();
    const report = await load.stop();
    const healthSamples = await health.stop();
    const rssSamples = await rss.stop();
    const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
    const check = await checkStored(sql, tag, report).finally(() => sql.end({ timeout: 2 }));
    const exit = await stopServer(proc);

    const windows: [Phase, number, number][] = [
      ['before', start, downAt],
      ['during', downAt, upAt],
      ['after', upAt, end + hangLimitMs],
    ];
    const phases = windows.map(([phase, from, to]) =>
      phaseStats(phase, requests, healthSamples, rssSamples, from, to),
    );
    const firstAck = requests
      .filter((r) => r.outcome.kind === 'acked' && r.startedAt >= upAt)
      .map((r) => r.startedAt + r.ms);
    const firstUp = healthSamples.filter((s) => s.at >= upAt && s.value.status === 200);
    return {
      mode: options.mode,
      phases,
      firstAckAfterMs: firstAck.length === 0 ? null : Math.min(...firstAck) - upAt,
      firstUpAfterMs: firstUp[0] === undefined ? null : firstUp[0].at + firstUp[0].value.ms - upAt,
      check,
      exit,
      outcomeCounts: report.counts,
      hangLimitMs,
    };
  } finally {
    await pg.cleanup();
  }
}

function phaseStats(
  phase: Phase,
  requests: readonly { startedAt: number; outcome: Outcome; ms: number }[],
  health: readonly Sample<HealthProbe>[],
  rss: readonly Sample<number | null>[],
  from: number,
  to: number,
): PhaseStats {
  const inPhase = requests.filter((r) => r.startedAt >= from && r.startedAt < to);
  const count = (test: (o: Outcome) => boolean): number =>
    inPhase.filter((r) => test(r.outcome)).length;
  const probes = between(health, from, to);
  return {
    phase,
    requests: inPhase.length,
    accepted: count((o) => o.kind === 'acked'),
    failed500: count((o) => o.kind === 'answered' && o.status === 500),
    refused503: count((o) => o.kind === 'answered' && o.status === 503),
    other: count((o) => o.kind === 'answered' && o.status !== 500 && o.status !== 503),
    noAnswer: count((o) => o.kind === 'in-doubt' || o.kind === 'refused'),
    maxMs: Math.max(0, ...inPhase.map((r) => r.ms)),
    healthUp: probes.filter((p) => p.status === 200).length,
    healthDown: probes.filter((p) => p.status === 503 && p.body.includes('"DOWN"')).length,
    healthMaxMs: Math.max(0, ...probes.map((p) => p.ms)),
    rssMaxKiB: maxOf(between(rss, from, to)),
  };
}
