/**
 * @module Ingest hot path: the group commit of a batch of events (workers/storage/stored-events.ts
 * sends what it stored on to the metrics actor; count-fold.ts folds its page counts). In cluster
 * mode each batch also commits its outbox row, and the cluster thread hears of every batch's end.
 */
import * as events from '../../src/db/events-repository.ts';
import * as idempotency from '../../src/db/idempotent-insert.ts';
import { insertOutboxed } from '../../src/db/outboxed-insert.ts';
import { batchSeqOf } from '../../src/domain/cluster/batch-seq.ts';
import type { MetricEvent, NewEvent } from '../../src/domain/event.ts';
import type { InsertOutcome } from '../../src/domain/idempotency.ts';
import { storedMetrics } from '../../src/domain/stored-metrics.ts';
import type { BatchNotice } from '../../src/protocol/cluster.ts';
import type {
  DbFailure,
  IngestHandlers,
  InsertResult,
  Result,
} from '../../src/protocol/storage/index.ts';
import type { Sql, Tx } from '../../src/db/connect.ts';
import { epochNow } from '../../src/telemetry/stage-histograms.ts';
import type { ClusterLink } from './cluster-link.ts';
import type { AreaTable, StorageContext } from './context.ts';

export interface IngestDeps {
  /**
   * After COMMIT: the stored events go to the metrics actor and their counts are folded.
   * `outcomes`: the batch's, whose numbers are the ids of `metricEvents`, in order.
   */
  readonly committed: (
    metricEvents: readonly MetricEvent[],
    outcomes: readonly InsertOutcome[],
  ) => void;
  /** Cluster mode; null: one instance. */
  readonly cluster: ClusterLink | null;
}

export function ingestHandlers(
  { sql, guarded }: StorageContext,
  { committed, cluster }: IngestDeps,
): AreaTable<IngestHandlers> {
  /**
   * Cluster mode: the batch takes the next number of this incarnation (shared by all storage
   * workers) and commits with its outbox row; the cluster thread then publishes it, or settles
   * the number if the insert failed, so that peers see no hole.
   */
  const insertOutboxedEvents = async (
    batch: readonly NewEvent[],
    detail: boolean,
    link: ClusterLink,
  ): Promise<Result<readonly InsertOutcome[], DbFailure>> => {
    const seq = batchSeqOf(link.data.incarnation, Atomics.add(link.counter, 0, 1) + 1);
    const writtenAt = Date.now();
    const result = await guarded('insertEvents', () =>
      insertOutboxed(sql, batch, writtenAt, detail, { instanceId: link.data.instanceId, seq }),
    );
    let notice: BatchNotice;
    if (result.ok) {
      committed(result.value.stored, result.value.outcomes);
      notice = { type: 'batch-committed', seq, payload: result.value.payload };
    } else notice = { type: 'batch-failed', seq };
    link.channel.postMessage(notice);
    return result.ok ? { ok: true, value: result.value.outcomes } : result;
  };

  return {
    /**
     * A batch in which no event carries an idempotency key takes the plain insert: keys cost
     * nothing to producers that do not use them. Only the events stored now go to the metrics
     * actor (a repeat was counted when it was first stored); with `detail` (only while a PATTERN
     * rule is ACTIVE) they carry what PATTERN reads, otherwise the message stays small.
     */
    async insertEvents({ events: batch, detail, stamped }) {
      if (cluster !== null) return insertOutboxedEvents(batch, detail === true, cluster);
      if (stamped === true) return insertStamped(batch, detail === true);
      const writtenAt = Date.now();
      const result = await guarded('insertEvents', () => insertBatch(sql, batch, writtenAt));
      if (result.ok)
        committed(storedMetrics(batch, result.value, writtenAt, detail === true), result.value);
      return result;
    },
  };

  /**
   * Stage timings: the same statement in an explicit transaction, so that its COMMIT (the WAL
   * flush) is a round trip of its own and can be timed apart from the statement. Two more round
   * trips per batch: a service measured so is not the one measured for throughput.
   */
  async function insertStamped(batch: readonly NewEvent[], detail: boolean): Promise<InsertResult> {
    const startedAt = epochNow();
    let statementAt = 0;
    const writtenAt = Date.now();
    const result = await guarded('insertEvents', () =>
      sql.begin(async (tx) => {
        const outcomes = await insertBatch(tx, batch, writtenAt);
        statementAt = epochNow();
        return outcomes;
      }),
    );
    if (!result.ok) return result;
    const committedAt = epochNow();
    committed(storedMetrics(batch, result.value, writtenAt, detail), result.value);
    return { ...result, stamps: { startedAt, statementAt, committedAt } };
  }
}

/** A batch in which no event carries an idempotency key takes the plain insert. */
const insertBatch = (
  sql: Sql | Tx,
  batch: readonly NewEvent[],
  writtenAt: number,
): Promise<InsertOutcome[]> =>
  batch.some((e) => e.idempotency !== undefined)
    ? idempotency.insertKeyedEvents(sql, batch, writtenAt)
    : events.insertEvents(sql, batch, writtenAt);
