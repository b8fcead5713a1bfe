/**
 * @module The batch insert of cluster mode (storage workers): the batch and its ingest_outbox row
 * commit together, so a committed batch always has what its peers need waiting for them, and an
 * idempotent repeat (nothing stored) adds nothing to it. A batch whose events are all stored and
 * need no ids (no idempotency key, no PATTERN detail) writes the row in its own single statement;
 * the others run in a transaction that writes the row from what was really stored.
 */
import type { MetricEvent, NewEvent } from '../domain/event.ts';
import type { InsertOutcome } from '../domain/idempotency.ts';
import { metricEventOf, storedMetrics } from '../domain/stored-metrics.ts';
import { encodeBatch, idsPayloadHead, withIds } from '../nats/batch-payload.ts';
import type { Sql, Tx } from './connect.ts';
import { insertEvents } from './events-repository.ts';
import { insertKeyedEvents } from './idempotent-insert.ts';

export interface OutboxRow {
  readonly instanceId: string;
  readonly seq: number;
}

export interface OutboxedBatch {
  readonly outcomes: readonly InsertOutcome[];
  /** The batch's stored events, as the metrics actor takes them. */
  readonly stored: readonly MetricEvent[];
  /** The outbox row's payload, to publish after COMMIT. */
  readonly payload: Uint8Array;
}

export async function insertOutboxed(
  sql: Sql,
  batch: readonly NewEvent[],
  writtenAt: number,
  detail: boolean,
  row: OutboxRow,
): Promise<OutboxedBatch> {
  const keyed = batch.some((e) => e.idempotency !== undefined);
  if (!keyed && !detail) {
    const stored = batch.map((e) => metricEventOf(e, writtenAt));
    const payloadHead = idsPayloadHead(encodeBatch(stored));
    const outcomes = await insertEvents(sql, batch, writtenAt, { ...row, payloadHead });
    // The bytes the statement wrote, for the publish that follows COMMIT.
    return { outcomes, stored, payload: withIds(payloadHead, outcomes) };
  }
  return sql.begin(async (tx) => {
    const outcomes = keyed
      ? await insertKeyedEvents(tx, batch, writtenAt)
      : await insertEvents(tx, batch, writtenAt);
    const stored = storedMetrics(batch, outcomes, writtenAt, detail);
    const payload = withIds(idsPayloadHead(encodeBatch(stored)), storedIdsOf(outcomes));
    await writeOutboxRow(tx, row, payload);
    return { outcomes, stored, payload };
  });
}

/** The ids of the events stored now (a repeat's outcome is not a number), in order. */
const storedIdsOf = (outcomes: readonly InsertOutcome[]): number[] =>
  outcomes.filter((outcome): outcome is number => typeof outcome === 'number');

async function writeOutboxRow(tx: Tx, row: OutboxRow, payload: Uint8Array): Promise<void> {
  await tx`
    INSERT INTO ingest_outbox (instance_id, batch_seq, payload)
    VALUES (${row.instanceId}, ${row.seq}, ${Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength)})`;
}
