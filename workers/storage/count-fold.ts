/**
 * @module Ingest hot path: each insert leaves its page counts pending; COUNTS_FOLD_MS later the
 * worker folds every pending count into event_counts (and once at start, for those a stop or a
 * crash left).
 */
import * as events from '../../src/db/events-repository.ts';
import type { StorageContext } from './context.ts';

/**
 * How long a committed batch's page counts stay pending. Each fold upserts every counter row its
 * batches touch once: the longer the wait, the fewer upserts per event, and the more pending rows
 * each page read adds up (about COUNTS_FOLD_MS of ingest).
 */
const COUNTS_FOLD_MS = 1000;

/** Folds now (what start finds pending); answers the schedule each commit calls. */
export function startCountFold({ sql, guarded }: StorageContext): () => void {
  let foldTimer: NodeJS.Timeout | undefined;
  /** Pending counts stay correct, only slower to read, until a fold succeeds: a failed one retries. */
  const foldCounts = async (): Promise<void> => {
    foldTimer = undefined;
    const result = await guarded('foldEventCounts', () => events.foldEventCounts(sql));
    if (!result.ok) scheduleFold();
  };
  const scheduleFold = (): void => {
    foldTimer ??= setTimeout(() => void foldCounts(), COUNTS_FOLD_MS);
  };
  void foldCounts();
  return scheduleFold;
}
