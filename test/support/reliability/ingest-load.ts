/**
 * A producer that remembers every promise: N keep-alive connections POST numbered events and record
 * what each answer meant (202 with its eventId, an error answer, no answer); then the table is
 * compared with the acknowledgements.
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import * as hdr from 'hdr-histogram-js';
import type postgres from 'postgres';
import { keyHeaders } from '../keys.ts';

export type Outcome =
  /** 202: the service promised the event is stored. */
  | { readonly kind: 'acked'; readonly id: number }
  /** Any other answer; `code` is the error body's code ('' if none). */
  | { readonly kind: 'answered'; readonly status: number; readonly code: string }
  /** Sent (at least in part) but no answer: the connection dropped, or our timeout fired. */
  | { readonly kind: 'in-doubt'; readonly reason: string }
  /** Never reached the service (connection refused), when not retried. */
  | { readonly kind: 'refused' };

export interface IngestLoadOptions {
  readonly url: string;
  readonly connections: number;
  /** Marks this run's events (their `source`). */
  readonly tag: string;
  /** Events to send in all; unbounded until stop() when absent. */
  readonly total?: number;
  /** Events per request: 1 posts to /events, more to /events/batch. */
  readonly batchSize?: number;
  /** A request without an answer after this is abandoned (in doubt). */
  readonly timeoutMs?: number;
  /** Resend a request whose connection was refused (it never reached the service). */
  readonly retryRefused?: boolean;
  /** Requests per second over all connections; unlimited when absent. */
  readonly requestsPerSecond?: number;
  /** Pause this long after an answer that is not 202 (a producer honouring Retry-After would). */
  readonly backoffMs?: number;
  /** Each event carries the idempotencyKey `<tag>-<seq>` (issue 22): a resend is a retry. */
  readonly idempotencyKeys?: boolean;
  /** Called for each settled request (once per event for batches). */
  readonly onOutcome?: (seq: number, outcome: Outcome, startedAt: number, ms: number) => void;
}

export interface IngestReport {
  readonly sent: number;
  readonly outcomes: ReadonlyMap<number, Outcome>;
  /** Per outcome label ('202', '500 INTERNAL', 'in-doubt ECONNRESET', ...), per request. */
  readonly counts: ReadonlyMap<string, number>;
  readonly acked: number;
  /** Latency of 202 answers and of all answers, ms. */
  readonly ackedLatency: LatencySummary;
  readonly allLatency: LatencySummary;
  /** Slowest single request of any outcome, ms. */
  readonly maxMs: number;
}

export interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export interface IngestLoad {
  /** Stops issuing requests; resolves when every request in flight has settled. */
  stop(): Promise<IngestReport>;
  /** Resolves when `total` events were sent and settled (or stop() was called). */
  readonly done: Promise<IngestReport>;
  acked(): number;
  settled(): number;
  report(): IngestReport;
}

interface Answer {
  readonly status: number;
  readonly body: string;
}

type Attempt =
  | { readonly ok: true; readonly answer: Answer }
  | { readonly ok: false; readonly error: string; readonly sent: boolean };

const label = (outcome: Outcome): string => {
  switch (outcome.kind) {
    case 'acked':
      return '202';
    case 'answered':
      return `${outcome.status}${outcome.code === '' ? '' : ` ${outcome.code}`}`;
    case 'in-doubt':
      return `in-doubt ${outcome.reason}`;
    case 'refused':
      return 'refused';
  }
};

/** The event numbered `seq` of run `tag` (its sessionId `<tag>-<seq>` finds it in the table). */
export const eventBody = (tag: string, seq: number, keyed = false): Record<string, unknown> => ({
  ...(keyed ? { idempotencyKey: `${tag}-${seq}` } : {}),
  eventType: `reliability.${seq % 7}`,
  source: tag,
  sessionId: `${tag}-${seq}`,
  userId: `user-${seq % 101}`,
  severity: seq % 10 === 0 ? 'ERROR' : 'INFO',
  tags: { run: tag, shard: String(seq % 4) },
  metadata: { seq, note: 'acknowledged events must never be lost' },
});

function post(
  agent: http.Agent,
  url: URL,
  path: string,
  body: string,
  timeoutMs: number,
): Promise<Attempt> {
  return new Promise((resolve) => {
    let written = false;
    let settled = false;
    const finish = (attempt: Attempt): void => {
      if (settled) return;
      settled = true;
      resolve(attempt);
    };
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...keyHeaders(),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          finish({
            ok: true,
            answer: { status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') },
          }),
        );
        res.on('error', (error: NodeJS.ErrnoException) =>
          finish({ ok: false, error: error.code ?? error.message, sent: true }),
        );
      },
    );
    req.setTimeout(timeoutMs, () => {
      finish({ ok: false, error: 'timeout', sent: true });
      req.destroy();
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // ECONNREFUSED: the TCP connection was never made, so nothing was sent.
      const refused = error.code === 'ECONNREFUSED';
      finish({ ok: false, error: error.code ?? error.message, sent: !refused && written });
    });
    req.on('socket', () => {
      written = true;
    });
    req.end(body);
  });
}

const codeOf = (body: string): string => {
  try {
    const parsed = JSON.parse(body) as { code?: unknown };
    return typeof parsed.code === 'string' ? parsed.code : '';
  } catch {
    return '';
  }
};

/** eventIds of a 202 answer, in request order (null where an item was refused). */
function idsOf(body: string, batch: boolean): (number | null)[] | null {
  const parse = (ack: unknown): number | null => {
    const eventId = (ack as { eventId?: unknown } | null)?.eventId;
    if (typeof eventId !== 'string' || !/^evt_\d+$/.test(eventId)) return null;
    return Number(eventId.slice(4));
  };
  try {
    const parsed = JSON.parse(body) as { results?: unknown };
    if (!batch) {
      const id = parse(parsed);
      return id === null ? null : [id];
    }
    return Array.isArray(parsed.results) ? parsed.results.map(parse) : null;
  } catch {
    return null;
  }
}

const summary = (histogram: hdr.Histogram, max: number): LatencySummary => ({
  count: histogram.totalCount,
  p50: histogram.totalCount === 0 ? 0 : histogram.getValueAtPercentile(50) / 1000,
  p99: histogram.totalCount === 0 ? 0 : histogram.getValueAtPercentile(99) / 1000,
  max,
});

export function startIngestLoad(options: IngestLoadOptions): IngestLoad {
  const url = new URL(options.url);
  const batchSize = options.batchSize ?? 1;
  const path = batchSize === 1 ? '/api/v1/events' : '/api/v1/events/batch';
  const timeoutMs = options.timeoutMs ?? 30_000;
  const outcomes = new Map<number, Outcome>();
  const counts = new Map<string, number>();
  const newHistogram = () =>
    hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000 });
  const acked = newHistogram();
  const all = newHistogram();
  let ackedMax = 0;
  let allMax = 0;
  let anyMax = 0;
  let ackedEvents = 0;
  let next = 0;
  let stopped = false;
  const agents: http.Agent[] = [];
  const interval =
    options.requestsPerSecond === undefined
      ? 0
      : (1000 * options.connections) / options.requestsPerSecond;

  const record = (
    seqs: readonly number[],
    outcome: Outcome[],
    startedAt: number,
    ms: number,
  ): void => {
    const first = outcome[0];
    if (first !== undefined) counts.set(label(first), (counts.get(label(first)) ?? 0) + 1);
    const us = Math.max(1, Math.round(ms * 1000));
    anyMax = Math.max(anyMax, ms);
    if (first?.kind !== 'in-doubt' && first?.kind !== 'refused') {
      all.recordValue(us);
      allMax = Math.max(allMax, ms);
    }
    if (first?.kind === 'acked') {
      acked.recordValue(us);
      ackedMax = Math.max(ackedMax, ms);
    }
    seqs.forEach((seq, i) => {
      const o = outcome[i] ?? outcome[0];
      if (o === undefined) return;
      outcomes.set(seq, o);
      if (o.kind === 'acked') ackedEvents++;
      options.onOutcome?.(seq, o, startedAt, ms);
    });
  };

  const takeSeqs = (): number[] => {
    const seqs: number[] = [];
    while (seqs.length < batchSize) {
      if (options.total !== undefined && next >= options.total) break;
      seqs.push(next++);
    }
    return seqs;
  };

  const loop = async (agent: http.Agent, offset: number): Promise<void> => {
    if (interval > 0) await sleep(offset);
    let nextStart = Date.now();
    while (!stopped) {
      const seqs = takeSeqs();
      if (seqs.length === 0) return;
      const events = seqs.map((seq) => eventBody(options.tag, seq, options.idempotencyKeys));
      const body = JSON.stringify(batchSize === 1 ? events[0] : events);
      for (;;) {
        const startedAt = Date.now();
        const t0 = performance.now();
        const attempt = await post(agent, url, path, body, timeoutMs);
        const ms = performance.now() - t0;
        if (!attempt.ok && !attempt.sent && options.retryRefused === true && !stopped) {
          await sleep(25);
          continue;
        }
        let outcome: Outcome[];
        if (!attempt.ok) {
          outcome = [
            attempt.sent ? { kind: 'in-doubt', reason: attempt.error } : { kind: 'refused' },
          ];
        } else if (attempt.answer.status === 202) {
          const ids = idsOf(attempt.answer.body, batchSize > 1);
          if (ids === null || ids.length !== seqs.length) {
            throw new Error(
              `a 202 without the expected eventIds: ${attempt.answer.body.slice(0, 300)}`,
            );
          }
          outcome = ids.map((id) =>
            id === null
              ? { kind: 'answered', status: 400, code: 'ITEM_REFUSED' }
              : { kind: 'acked', id },
          );
        } else {
          outcome = [
            { kind: 'answered', status: attempt.answer.status, code: codeOf(attempt.answer.body) },
          ];
        }
        record(seqs, outcome, startedAt, ms);
        if (outcome[0]?.kind !== 'acked' && options.backoffMs !== undefined)
          await sleep(options.backoffMs);
        break;
      }
      if (interval > 0) {
        nextStart += interval;
        const wait = nextStart - Date.now();
        if (wait > 0) await sleep(wait);
        else nextStart = Date.now();
      }
    }
  };

  const loops: Promise<void>[] = [];
  for (let i = 0; i < options.connections; i++) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(agent);
    loops.push(loop(agent, (i * interval) / options.connections));
  }
  const report = (): IngestReport => ({
    sent: outcomes.size,
    outcomes,
    counts,
    acked: ackedEvents,
    ackedLatency: summary(acked, ackedMax),
    allLatency: summary(all, allMax),
    maxMs: anyMax,
  });
  const done = Promise.all(loops).then(() => {
    for (const agent of agents) agent.destroy();
    return report();
  });
  return {
    stop: () => {
      stopped = true;
      return done;
    },
    done,
    acked: () => ackedEvents,
    settled: () => outcomes.size,
    report,
  };
}

export interface StoreCheck {
  /** Rows of this run in the table. */
  readonly rows: number;
  readonly acked: number;
  /** Acknowledged, but no row with that id and that event (the promise broken). */
  readonly lost: number;
  /** Events stored more than once. */
  readonly duplicated: number;
  /** Stored although the answer was an error that promises nothing was stored (503). */
  readonly storedAfter503: number;
  /** Stored although the answer was another error (500 during an outage may be in doubt). */
  readonly storedAfterError: number;
  /** Stored, the request had no answer: allowed either way. */
  readonly inDoubt: number;
  readonly inDoubtStored: number;
  /** Rows whose event was never sent (impossible). */
  readonly phantom: number;
  /** A few lost sequence numbers, for the report. */
  readonly lostExamples: readonly number[];
}

/** Compares the table with what the producer was told. */
export async function checkStored(
  sql: postgres.Sql,
  tag: string,
  report: { readonly outcomes: ReadonlyMap<number, Outcome> },
): Promise<StoreCheck> {
  const rows = await sql<{ id: string; session_id: string }[]>`
    SELECT id::text AS id, session_id FROM events WHERE source = ${tag}`;
  const bySeq = new Map<number, number[]>();
  for (const row of rows) {
    const seq = Number(row.session_id.slice(tag.length + 1));
    const ids = bySeq.get(seq);
    if (ids === undefined) bySeq.set(seq, [Number(row.id)]);
    else ids.push(Number(row.id));
  }
  let lost = 0;
  let acked = 0;
  let storedAfter503 = 0;
  let storedAfterError = 0;
  let inDoubt = 0;
  let inDoubtStored = 0;
  const lostExamples: number[] = [];
  for (const [seq, outcome] of report.outcomes) {
    const ids = bySeq.get(seq);
    if (outcome.kind === 'acked') {
      acked++;
      if (ids?.includes(outcome.id) !== true) {
        lost++;
        if (lostExamples.length < 10) lostExamples.push(seq);
      }
    } else if (outcome.kind === 'in-doubt') {
      inDoubt++;
      if (ids !== undefined) inDoubtStored++;
    } else if (ids !== undefined) {
      if (outcome.kind === 'answered' && outcome.status === 503) storedAfter503++;
      else storedAfterError++;
    }
  }
  let duplicated = 0;
  let phantom = 0;
  for (const [seq, ids] of bySeq) {
    if (ids.length > 1) duplicated++;
    if (!report.outcomes.has(seq)) phantom++;
  }
  return {
    rows: rows.length,
    acked,
    lost,
    duplicated,
    storedAfter503,
    storedAfterError,
    inDoubt,
    inDoubtStored,
    phantom,
    lostExamples,
  };
}

/** The problems a check found, empty when every promise was kept. */
export function brokenPromises(check: StoreCheck): string[] {
  const problems: string[] = [];
  if (check.lost > 0)
    problems.push(`${check.lost} acknowledged events lost (seq ${check.lostExamples.join(', ')})`);
  if (check.duplicated > 0) problems.push(`${check.duplicated} events stored more than once`);
  if (check.storedAfter503 > 0) problems.push(`${check.storedAfter503} events stored after a 503`);
  if (check.phantom > 0) problems.push(`${check.phantom} rows of events never sent`);
  return problems;
}
