/**
 * bench:ingest's bounds and stages (issue 35), printed: c=50 against min(bare c=50, 50 / t_fsync),
 * c=500 against the bare server at c=500, batched ingest against COPY, each target as a ratio
 * from this one run; then where a single event's time goes, stage by stage (GET
 * /api/v1/ingest-stages of a service with INGEST_STAGE_TIMINGS=true).
 */
import type { CopyRate } from '../load-generators/copy-rate.ts';
import type { LoadSummary } from '../load-generators/run-load.ts';
import type { FsyncLatency } from '../harness/fsync-latency.ts';
import { loadColumns, loadRow } from './load-table.ts';
import { num, printTable } from './print-table.ts';

/** Issue 35's targets. */
export const TARGETS = {
  /** c=50 throughput over min(bare at c=50, 50 / t_fsync). */
  lowRatio: 0.5,
  /** c=50 p99 at most this many times the bare p99, plus `lowFsyncs` t_fsync. */
  lowP99Bare: 2,
  lowFsyncs: 4,
  /** c=500 throughput over the bare server's at c=500. */
  highRatio: 0.7,
  /** Batched events/s over COPY's rows/s. */
  batchedRatio: 0.5,
} as const;

export interface BoundsRun {
  readonly low: number;
  readonly high: number;
  readonly batchEvents: number;
  readonly bareLow: LoadSummary;
  readonly bareHigh: LoadSummary;
  readonly vigilLow: LoadSummary;
  readonly vigilHigh: LoadSummary;
  readonly batched: LoadSummary;
  readonly fsync: FsyncLatency;
  readonly copy: CopyRate;
}

export interface StageRow {
  readonly stage: string;
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

const out = (line = ''): void => void process.stdout.write(`${line}\n`);
const verdict = (met: boolean): string => (met ? 'met' : 'MISSED');
const clean = (s: LoadSummary): boolean => s.non2xx === 0 && s.errors === 0;

/** Prints the table and the three targets; true when every run was free of errors. */
export function printBounds(run: BoundsRun, rounds: string): boolean {
  const { bareLow, bareHigh, vigilLow, vigilHigh, batched, fsync, copy } = run;
  const eventsPerSec = (s: LoadSummary): number =>
    s === batched ? s.reqPerSec * run.batchEvents : s.reqPerSec;
  out(`## Ingest against its bounds: c=${run.low}, c=${run.high}, batched; ${rounds}`);
  out();
  printTable(
    [...loadColumns('c'), { title: 'events/s', align: 'right' }],
    [bareLow, vigilLow, bareHigh, vigilHigh, batched].map((s) =>
      loadRow(s, [num(eventsPerSec(s))]),
    ),
  );
  out();
  // t_fsync in ms: c clients, each waiting for its own flush at worst, commit c / t_fsync a second.
  const tFsync = fsync.p50Ms;
  const fsyncBound = (run.low * 1000) / tFsync;
  const bound = Math.min(bareLow.reqPerSec, fsyncBound);
  out(
    `fdatasync on ${fsync.directory} (${fsync.where}): p50 ${num(fsync.p50Ms, 3)} ms, ` +
      `p99 ${num(fsync.p99Ms, 3)} ms, mean ${num(fsync.meanMs, 3)} ms over ${num(fsync.samples)} ` +
      'writes of 8 KiB, each flushed; t_fsync below is the p50.',
  );
  out(
    `COPY FROM STDIN of ${num(copy.rows)} of the same events into a scratch copy of events: ` +
      `${num(copy.seconds, 2)} s, ${num(copy.rowsPerSec)} rows/s.`,
  );
  out();
  const lowRatio = vigilLow.reqPerSec / bound;
  const p99Limit = TARGETS.lowP99Bare * bareLow.p99Ms + TARGETS.lowFsyncs * tFsync;
  out(
    `c=${run.low}: bound min(bare ${num(bareLow.reqPerSec)} req/s, ${run.low} / t_fsync ` +
      `${num(fsyncBound)} /s) = ${num(bound)} /s; Vigil ${num(vigilLow.reqPerSec)} events/s = ` +
      `${num(lowRatio, 2)}x (target >= ${TARGETS.lowRatio}x: ${verdict(lowRatio >= TARGETS.lowRatio)}); ` +
      `p99 ${num(vigilLow.p99Ms, 2)} ms against ${TARGETS.lowP99Bare} x bare p99 ` +
      `${num(bareLow.p99Ms, 2)} + ${TARGETS.lowFsyncs} t_fsync = ${num(p99Limit, 2)} ms ` +
      `(${verdict(vigilLow.p99Ms <= p99Limit)})`,
  );
  const highRatio = vigilHigh.reqPerSec / bareHigh.reqPerSec;
  const highMet =
    highRatio >= TARGETS.highRatio && clean(vigilHigh) && vigilHigh.reqPerSec > vigilLow.reqPerSec;
  out(
    `c=${run.high}: Vigil ${num(vigilHigh.reqPerSec)} events/s against bare ${num(bareHigh.reqPerSec)} ` +
      `req/s = ${num(highRatio, 2)}x (target >= ${TARGETS.highRatio}x, no errors, more than at ` +
      `c=${run.low}: ${verdict(highMet)})`,
  );
  const batchedRate = eventsPerSec(batched);
  const batchedRatio = batchedRate / copy.rowsPerSec;
  out(
    `${run.batchEvents} events per request: ${num(batchedRate)} events/s against COPY ` +
      `${num(copy.rowsPerSec)} rows/s = ${num(batchedRatio, 2)}x (target >= ${TARGETS.batchedRatio}x: ` +
      `${verdict(batchedRatio >= TARGETS.batchedRatio)})`,
  );
  return [bareLow, vigilLow, bareHigh, vigilHigh, batched].every(clean);
}

/** The stage table, with the client's own view of the same requests beside it. */
export function printStages(
  stages: readonly StageRow[],
  requests: number,
  client: LoadSummary,
  window: string,
): void {
  out();
  out(`## Where a single event's time goes: c=${client.connections}, ${window}`);
  out();
  printTable(
    [
      { title: 'stage' },
      { title: 'requests', align: 'right' },
      { title: 'p50 ms', align: 'right' },
      { title: 'p99 ms', align: 'right' },
      { title: 'max ms', align: 'right' },
    ],
    stages.map((s) => [s.stage, num(s.count), num(s.p50Ms, 3), num(s.p99Ms, 3), num(s.maxMs, 2)]),
  );
  out();
  const p50Sum = stages.reduce((sum, s) => sum + s.p50Ms, 0);
  out(
    `${num(requests)} requests timed by the service (INGEST_STAGE_TIMINGS=true: each batch in ` +
      "BEGIN, INSERT, COMMIT, two more round trips than without); the stages' p50s add up to " +
      `${num(p50Sum, 2)} ms; the client saw ${num(client.reqPerSec)} req/s, p50 ` +
      `${num(client.p50Ms, 2)} ms, p99 ${num(client.p99Ms, 2)} ms (the rest: the socket, both ways).`,
  );
}
