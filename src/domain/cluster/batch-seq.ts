/**
 * @module Batch sequence numbers of one instance, and the JetStream message id built from them.
 * Each start of an instance is a new incarnation (counted in PostgreSQL); its batches are numbered
 * 1, 2, 3... in that incarnation, with no hole (a batch that failed is published empty). The two
 * travel as one integer, incarnation × 2^32 + number, exact in a double up to incarnation 2^21:
 * peers then find a missing batch as a hole in one incarnation's numbers, with bounded memory.
 */

const NUMBERS_PER_INCARNATION = 2 ** 32;
/** The largest incarnation whose sequence numbers stay exact in a double. */
export const MAX_INCARNATION = 2 ** 21 - 1;

export interface BatchPosition {
  readonly incarnation: number;
  /** 1 for an incarnation's first batch. */
  readonly number: number;
}

export const batchSeqOf = (incarnation: number, number: number): number =>
  incarnation * NUMBERS_PER_INCARNATION + number;

export const positionOf = (seq: number): BatchPosition => ({
  incarnation: Math.floor(seq / NUMBERS_PER_INCARNATION),
  number: seq % NUMBERS_PER_INCARNATION,
});

/** `<instanceId>:<batchSeq>`: the same batch always has the same id, so JetStream drops a repeat. */
export const messageIdOf = (instanceId: string, seq: number): string => `${instanceId}:${seq}`;

/** The instance and sequence of a message id, or null when it is not one of ours. */
export function parseMessageId(id: string): { instanceId: string; seq: number } | null {
  const colon = id.lastIndexOf(':');
  if (colon <= 0) return null;
  const seqText = id.slice(colon + 1);
  if (!/^[0-9]{1,16}$/.test(seqText)) return null;
  const seq = Number(seqText);
  if (!Number.isSafeInteger(seq) || positionOf(seq).number === 0) return null;
  return { instanceId: id.slice(0, colon), seq };
}
