/**
 * @module Growable dense counters indexed by a key id (KeyRegistry): one typed array per map, grown
 * by doubling up to the registry's id limit, so the hot path is one array write.
 */
export const EMPTY_UINT32 = new Uint32Array(0);
export const EMPTY_FLOAT64 = new Float64Array(0);

const grownLength = (current: number, index: number, limit: number): number =>
  Math.min(Math.max(index + 1, current * 2, 16), Math.max(limit, index + 1));

/** `counts` itself when `index` fits, else a longer copy (the caller keeps the returned array). */
export function fitUint32(
  counts: Uint32Array<ArrayBuffer>,
  index: number,
  limit: number,
): Uint32Array<ArrayBuffer> {
  if (index < counts.length) return counts;
  const grown = new Uint32Array(grownLength(counts.length, index, limit));
  grown.set(counts);
  return grown;
}

export function fitFloat64(
  counts: Float64Array<ArrayBuffer>,
  index: number,
  limit: number,
): Float64Array<ArrayBuffer> {
  if (index < counts.length) return counts;
  const grown = new Float64Array(grownLength(counts.length, index, limit));
  grown.set(counts);
  return grown;
}
