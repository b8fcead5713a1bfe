/**
 * @module The metrics actor's checkpoint (issue 33): its whole state in one versioned binary
 * record, as written to `metrics_checkpoints` (docs/metrics.md "Restarts"). Layout:
 *
 *     bytes 0..3  "VGMC"
 *     bytes 4..7  format version, big-endian (CHECKPOINT_FORMAT)
 *     bytes 8..   raw deflate (level 1) of v8.serialize(CheckpointContent)
 *
 * The state's typed arrays are mostly zeros (a minute's per-type counts, a histogram's buckets):
 * deflate takes them to a fraction for little CPU. A record that does not start with the magic,
 * names another version, or fails to inflate or deserialise is refused as a whole, with a reason
 * (the actor then rebuilds from the stored events).
 */
import { deserialize, serialize } from 'node:v8';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { MetricsLimits } from '../metrics-limits.ts';
import type { CountedMark } from './counted-mark.ts';

/** 2: an empty histogram is written as '' (latency-histograms.ts encodedHistogram); 1 is read too. */
export const CHECKPOINT_FORMAT = 2;
const READABLE_FORMATS: ReadonlySet<number> = new Set([1, CHECKPOINT_FORMAT]);
const MAGIC = Buffer.from('VGMC', 'latin1');
const HEADER_BYTES = 8;

export interface CheckpointContent {
  /** Epoch ms the state was taken at. */
  readonly takenAt: number;
  /** The caps it was counted under: a restore under other caps rebuilds instead. */
  readonly limits: MetricsLimits;
  readonly mark: CountedMark;
  /** AggregatorParts through object-graph.ts toPlain. */
  readonly aggregator: unknown;
  /** The rule engine's state (rules/engine-state.ts), null when none was taken. */
  readonly rules: unknown;
}

export function encodeCheckpoint(content: CheckpointContent): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeUInt32BE(CHECKPOINT_FORMAT, 4);
  return Buffer.concat([header, deflateRawSync(serialize(content), { level: 1 })]);
}

export type DecodedCheckpoint =
  | { readonly ok: true; readonly content: CheckpointContent }
  | { readonly ok: false; readonly reason: string };

export function decodeCheckpoint(bytes: Uint8Array): DecodedCheckpoint {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length < HEADER_BYTES || !buffer.subarray(0, 4).equals(MAGIC))
    return { ok: false, reason: 'not a metrics checkpoint (no VGMC header)' };
  const version = buffer.readUInt32BE(4);
  if (!READABLE_FORMATS.has(version))
    return {
      ok: false,
      reason: `unknown checkpoint format ${version} (this version reads ${CHECKPOINT_FORMAT})`,
    };
  try {
    const content = deserialize(inflateRawSync(buffer.subarray(HEADER_BYTES))) as unknown;
    if (!isContent(content)) return { ok: false, reason: 'checkpoint content is incomplete' };
    return { ok: true, content };
  } catch (error) {
    return { ok: false, reason: `corrupt checkpoint: ${(error as Error).message}` };
  }
}

const isContent = (value: unknown): value is CheckpointContent => {
  if (typeof value !== 'object' || value === null) return false;
  const c = value as Partial<CheckpointContent>;
  return (
    typeof c.takenAt === 'number' &&
    typeof c.limits === 'object' &&
    typeof c.mark === 'object' &&
    c.mark !== null &&
    typeof c.mark.from === 'number' &&
    c.mark.ranges instanceof Float64Array &&
    typeof c.aggregator === 'object'
  );
};
