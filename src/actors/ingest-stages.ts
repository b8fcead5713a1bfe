/**
 * @module Ingest stage timings (INGEST_STAGE_TIMINGS, front thread): where a single-event request's
 * time goes between its arrival and its answer. The adapter stamps the arrival and the answer, the
 * batcher the enqueue and the dispatch, the storage worker its start, the statement and COMMIT;
 * each answered request adds its six stage durations to the histograms, read by an admin route.
 * Off, nothing is stamped: the adapter checks one value per request.
 */
import type { StorageStamps } from '../protocol/storage/index.ts';
import {
  createStageHistograms,
  epochNow,
  type StageSummary,
} from '../telemetry/stage-histograms.ts';

/**
 * In order: arrival to the batcher's queue (body, parse, checks); queued until its batch left
 * (lingering, or waiting for a free writer); the hand-off to the storage worker; the statement;
 * COMMIT; from COMMIT back to the answer written on the socket.
 */
export const INGEST_STAGES = [
  'queue',
  'linger',
  'handoff',
  'statement',
  'commit',
  'reply',
] as const;
export type IngestStage = (typeof INGEST_STAGES)[number];

/** One request's stamps, epoch ms (epochNow), filled in as it goes; 0: not reached. */
export interface IngestStamps {
  readonly arrivedAt: number;
  enqueuedAt: number;
  dispatchedAt: number;
  storage: StorageStamps | null;
}

export const arrivalStamps = (): IngestStamps => ({
  arrivedAt: epochNow(),
  enqueuedAt: 0,
  dispatchedAt: 0,
  storage: null,
});

export interface IngestStageTimings {
  /** The request was answered now: its stages are recorded if it went the whole way. */
  answered(stamps: IngestStamps): void;
  summary(): Readonly<Record<IngestStage, StageSummary>>;
  /** Requests recorded since start or the last reset. */
  requests(): number;
  reset(): void;
}

export function createIngestStageTimings(): IngestStageTimings {
  const histograms = createStageHistograms(INGEST_STAGES);
  let requests = 0;
  return {
    answered(stamps) {
      const storage = stamps.storage;
      // A refused, failed or timed-out request never reached COMMIT: not a stored event's path.
      if (storage === null || stamps.enqueuedAt === 0 || stamps.dispatchedAt === 0) return;
      const answeredAt = epochNow();
      requests++;
      histograms.record('queue', stamps.enqueuedAt - stamps.arrivedAt);
      histograms.record('linger', stamps.dispatchedAt - stamps.enqueuedAt);
      histograms.record('handoff', storage.startedAt - stamps.dispatchedAt);
      histograms.record('statement', storage.statementAt - storage.startedAt);
      histograms.record('commit', storage.committedAt - storage.statementAt);
      histograms.record('reply', answeredAt - storage.committedAt);
    },
    summary: () => histograms.summary(),
    requests: () => requests,
    reset() {
      histograms.reset();
      requests = 0;
    },
  };
}
