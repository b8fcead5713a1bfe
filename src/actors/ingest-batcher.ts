/**
 * @module Group commit (front thread): requests' events wait in one queue; whenever a writer slot
 * is free, everything queued (up to INGEST_BATCH_MAX, whole requests only) goes out as one storage
 * task, and each request learns its ids only after that batch COMMITted. While every slot is busy
 * the queue grows into the next batch: that is what makes the batches, and so the commits, few.
 * Under load (a write already in flight) a batch also lingers up to batchWaitMs for more events:
 * each batch costs a wake-up of every thread it crosses and a commit, whatever its size.
 */
import { AppError } from '../errors.ts';
import type { NewEvent } from '../domain/event.ts';
import type { InsertOutcome } from '../domain/idempotency.ts';
import type { DbFailure, Result } from '../protocol/storage/index.ts';
import { PlainHistogram } from '../telemetry/plain-histogram.ts';
import { epochNow } from '../telemetry/stage-histograms.ts';
import { REAL_TIMERS, type Timers } from '../timers.ts';
import type { IngestStamps } from './ingest-stages.ts';
import type { StoragePool } from './storage-pool.ts';

export interface IngestBatcherOptions {
  readonly batchMax: number;
  /**
   * While a write is in flight, how long the oldest queued request may wait for more events to
   * join its batch (0: one event-loop turn). With nothing in flight a batch leaves at the next
   * turn, so a lone request never waits.
   */
  readonly batchWaitMs: number;
  readonly queueMax: number;
  /**
   * Bytes of the requests whose events are accepted but not yet committed (each request's body
   * length, which the front already has: no event is measured); beyond it: OVERLOADED, as for
   * queueMax. Large events would otherwise fill memory long before queueMax events. Absent: no bound.
   */
  readonly queueMaxBytes?: number;
  /** Batches written at once (the storage connections). Absent: unbounded. */
  readonly maxInFlight?: number;
  /**
   * A request not answered this long after it arrived gets a database failure (500), whether its
   * batch is still queued behind busy writers or being written: PostgreSQL's statement_timeout
   * cannot fire on a server that has stopped answering (frozen, partitioned). Its events stay
   * counted in the queue, and a slot busy, until the write really ends (so the bounds hold), and
   * may still be stored: a 500 promises nothing. Absent: requests wait.
   */
  readonly writeTimeoutMs?: number;
  /**
   * Whether the metrics actor needs each committed event's detail (a PATTERN rule is ACTIVE):
   * read once per batch and passed to the storage worker. Absent: never.
   */
  readonly eventDetail?: () => boolean;
  /**
   * Stage timings (INGEST_STAGE_TIMINGS): stamp each request's enqueue and dispatch, and ask the
   * storage worker for its own stamps. Absent: nothing is stamped.
   */
  readonly stamped?: boolean;
  /** The clock and timers the batcher reads. Absent: performance.now and the real timers. */
  readonly timers?: BatcherTimers;
}

/** What the batcher needs of time; tests pass a manual one and move it themselves. */
export type BatcherTimers = Pick<Timers, 'now' | 'setTimeout' | 'clearTimeout'>;

const WRITE_TIMEOUT: Result<never, DbFailure> = {
  ok: false,
  code: 'DB_FAILURE',
  message: 'database timeout',
};

/** Bounds of the batch-size histogram: 1 event to INGEST_BATCH_MAX's largest setting. */
export const BATCH_EVENTS_BOUNDS: readonly number[] = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000,
];
/** Bounds of the commit-time histogram, in seconds: 1 ms to 10 s. */
export const COMMIT_SECONDS_BOUNDS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/**
 * The batcher's own numbers, kept per batch (never per event) on the front thread and read as
 * they are by a scrape (GET /metrics).
 */
export interface IngestBatcherStats {
  /** Events accepted but not yet committed or failed, and the bytes of their requests. */
  readonly queuedEvents: number;
  readonly queuedBytes: number;
  /** Events per batch written, of the batches that committed. */
  readonly batchEvents: PlainHistogram;
  /** From handing a batch to the storage pool to its COMMIT answered, in seconds. */
  readonly commitSeconds: PlainHistogram;
  /** Batches whose write failed (a database error or a dead storage thread). */
  readonly failedBatches: number;
}

export interface IngestBatcher {
  /**
   * Resolves with the events' outcomes (ids, or repeats of idempotency keys) in order once
   * stored; rejects OVERLOADED when the queue is full
   * in events or in bytes. `bytes`: the size of the request that carried them (its body length).
   * `stamps`: the request's stage timings, filled in while the batcher is `stamped`.
   */
  submit(
    events: readonly NewEvent[],
    bytes: number,
    stamps?: IngestStamps,
  ): Promise<Result<readonly InsertOutcome[], DbFailure>>;
  /** Events accepted but not yet committed or failed. */
  pending(): number;
  /** The queue now and what the batches written so far came to. */
  stats(): IngestBatcherStats;
  /** Writes what is queued and resolves when every submitted event is settled. */
  drain(): Promise<void>;
}

/**
 * A request's events and how to answer it: the write's result or its deadline, whichever comes
 * first (answer and fail below settle it once).
 */
interface Request {
  readonly events: readonly NewEvent[];
  /** What the request counts against queueMaxBytes until its write ends. */
  readonly bytes: number;
  /** timers.now() when queued: how long the head of the queue has lingered. */
  readonly queuedAt: number;
  readonly stamps: IngestStamps | undefined;
  readonly timers: BatcherTimers;
  readonly resolve: (result: Result<readonly InsertOutcome[], DbFailure>) => void;
  readonly reject: (error: Error) => void;
  /** The write-timeout timer, if any; cleared by whichever answer comes first. */
  timer: unknown;
  /** Answered (by the write or by the deadline): a later answer is ignored. */
  done: boolean;
}

function answer(request: Request, result: Result<readonly InsertOutcome[], DbFailure>): void {
  if (request.done) return;
  request.done = true;
  request.timers.clearTimeout(request.timer);
  request.resolve(result);
}

function fail(request: Request, error: unknown): void {
  if (request.done) return;
  request.done = true;
  request.timers.clearTimeout(request.timer);
  request.reject(error instanceof Error ? error : new Error(String(error)));
}

const timedOut = (request: Request): void => answer(request, WRITE_TIMEOUT);

function stampDispatch(requests: readonly Request[]): void {
  const now = epochNow();
  for (const r of requests) if (r.stamps !== undefined) r.stamps.dispatchedAt = now;
}

export function createIngestBatcher(
  pool: StoragePool,
  options: IngestBatcherOptions,
): IngestBatcher {
  const maxInFlight = options.maxInFlight ?? Number.POSITIVE_INFINITY;
  const queueMaxBytes = options.queueMaxBytes ?? Number.POSITIVE_INFINITY;
  const timers = options.timers ?? REAL_TIMERS;
  const stamped = options.stamped === true;
  let queue: Request[] = [];
  let queuedEvents = 0;
  let pendingEvents = 0;
  let pendingBytes = 0;
  let scheduled = false;
  let timer: unknown;
  const inFlight = new Set<Promise<void>>();
  const batchEvents = new PlainHistogram(BATCH_EVENTS_BOUNDS);
  const commitSeconds = new PlainHistogram(COMMIT_SECONDS_BOUNDS);
  let failedBatches = 0;
  const overloaded = new AppError('OVERLOADED', 'Ingest queue is full, retry later', undefined, {
    'Retry-After': '1',
  });

  /** Whole requests from the head of the queue, at most batchMax events (at least one request). */
  const takeBatch = (): Request[] => {
    let count = 0;
    let n = 0;
    while (n < queue.length) {
      const size = (queue[n] as Request).events.length;
      if (n > 0 && count + size > options.batchMax) break;
      count += size;
      n++;
    }
    const taken = queue.slice(0, n);
    queue = queue.slice(n);
    queuedEvents -= count;
    return taken;
  };

  const write = (requests: Request[]): void => {
    const events = requests.flatMap((r) => r.events);
    const bytes = requests.reduce((sum, r) => sum + r.bytes, 0);
    const dispatched = timers.now();
    const detail = options.eventDetail?.() === true;
    if (stamped) stampDispatch(requests);
    const settled = pool
      .run('insertEvents', stamped ? { events, detail, stamped } : { events, detail })
      .then(
        (result) => {
          if (result.ok) {
            if (result.stamps !== undefined) {
              for (const r of requests)
                if (r.stamps !== undefined) r.stamps.storage = result.stamps;
            }
            batchEvents.observe(events.length);
            commitSeconds.observe((timers.now() - dispatched) / 1000);
          } else failedBatches++;
          let offset = 0;
          for (const request of requests) {
            const n = request.events.length;
            answer(
              request,
              result.ok ? { ok: true, value: result.value.slice(offset, offset + n) } : result,
            );
            offset += n;
          }
        },
        (error: unknown) => {
          failedBatches++;
          requests.forEach((r) => fail(r, error));
        },
      )
      .finally(() => {
        pendingEvents -= events.length;
        pendingBytes -= bytes;
        inFlight.delete(settled);
        // What queued up while this write ran is the next batch.
        pump();
      });
    inFlight.add(settled);
  };

  /** Until when the head of the queue lingers for company (0: it may go now). */
  const lingerUntil = (): number => {
    const head = queue[0];
    if (head === undefined || inFlight.size === 0 || queuedEvents >= options.batchMax) return 0;
    return head.queuedAt + options.batchWaitMs;
  };

  const pump = (): void => {
    timers.clearTimeout(timer);
    timer = undefined;
    scheduled = false;
    while (queue.length > 0 && inFlight.size < maxInFlight) {
      const wait = lingerUntil() - timers.now();
      if (wait > 0) {
        timer = timers.setTimeout(pump, wait, undefined);
        return;
      }
      write(takeBatch());
    }
  };

  /** Pumps at the next event-loop turn, so the requests that arrived in this one go together. */
  const schedule = (): void => {
    if (scheduled || timer !== undefined) return;
    scheduled = true;
    setImmediate(pump);
  };

  return {
    submit(events, bytes, stamps) {
      if (pendingEvents + events.length > options.queueMax) return Promise.reject(overloaded);
      // A request alone larger than the bound still goes through an empty queue (it passed
      // MAX_BODY_BYTES): otherwise a low setting would refuse it forever.
      if (pendingBytes > 0 && pendingBytes + bytes > queueMaxBytes) {
        return Promise.reject(overloaded);
      }
      pendingEvents += events.length;
      pendingBytes += bytes;
      return new Promise((resolve, reject) => {
        const request: Request = {
          events,
          bytes,
          queuedAt: timers.now(),
          stamps,
          timers,
          resolve,
          reject,
          timer: undefined,
          done: false,
        };
        if (options.writeTimeoutMs !== undefined)
          request.timer = timers.setTimeout(timedOut, options.writeTimeoutMs, request);
        if (stamps !== undefined) stamps.enqueuedAt = epochNow();
        queue.push(request);
        queuedEvents += events.length;
        if (queuedEvents >= options.batchMax) pump();
        else schedule();
      });
    },
    pending: () => pendingEvents,
    stats: () => ({
      queuedEvents: pendingEvents,
      queuedBytes: pendingBytes,
      batchEvents,
      commitSeconds,
      failedBatches,
    }),
    async drain() {
      pump();
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
  };
}
