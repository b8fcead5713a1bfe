/**
 * @module Windowed values of the id-indexed maps (types, sources) for one moment: one key's count
 * over all the windows rules read (one walk back over its minute counts), and how many keys have
 * events in a window (uniqueEventTypes / uniqueSources), by a walk that stops once it has met every
 * key of the 24 h.
 */
import type { KeyRegistry } from '../state/key-registry.ts';
import type { MinuteBucket } from '../state/minute-buckets.ts';
import type { MinuteColumns, PrefixColumn } from './minute-columns.ts';
import type { KeyReads } from './read-groups.ts';

export type CountsOf = (bucket: MinuteBucket) => Uint32Array;
export const typeCounts: CountsOf = (bucket) => bucket.byType;
export const sourceCounts: CountsOf = (bucket) => bucket.bySource;

/**
 * Writes the value of every read of `reads` into `values`: one walk back over the minutes with
 * events, adding each key's count, and taking each key's total as the walk passes its bounds (keys
 * counted under `(other)` past the cap have no id: they read 0 by their own name).
 */
export function fillKeyReads(
  reads: KeyReads,
  registry: KeyRegistry,
  counts: CountsOf,
  columns: MinuteColumns,
  values: Float64Array,
): void {
  const { keys, bounds, keyOf, byBound } = reads;
  const ids = Int32Array.from(keys, (key) => registry.find(key) ?? -1);
  const totals = new Float64Array(keys.length);
  const sums = new Float64Array(bounds.length); // each key's total at each of its bounds
  let passed = 0; // bounds taken, in byBound order
  const depth = Math.min(reads.depth, columns.depth);
  for (let k = 0; k < depth; k++) {
    const bucket = columns.buckets[k];
    if (bucket === undefined) continue;
    // The minutes since the last bucket were empty: a bound up to here has every minute before it.
    for (; passed < byBound.length && bounds[byBound[passed]!]! <= k; passed++) {
      const bound = byBound[passed]!;
      sums[bound] = totals[keyOf[bound]!]!;
    }
    const perId = counts(bucket);
    for (let key = 0; key < keys.length; key++) {
      const id = ids[key]!;
      if (id >= 0) totals[key]! += perId[id] ?? 0;
    }
  }
  for (; passed < byBound.length; passed++) {
    const bound = byBound[passed]!;
    sums[bound] = totals[keyOf[bound]!]!;
  }
  for (let i = 0; i < reads.slots.length; i++) {
    values[reads.slots[i]!] = sums[reads.endAt[i]!]! - sums[reads.startAt[i]!]!;
  }
}

/** Which keys of one map (types or sources) have events in a window, at one moment. */
export class KeyPresence {
  /** Keys with events anywhere in the 24 h: a walk that met them all can stop. */
  private readonly alive: number;
  /** [k] = keys with events among offsets 0..k-1. */
  private seen: PrefixColumn | undefined;

  /** `retained`: each id's count in the 24 h (RetentionTotals). */
  constructor(
    private readonly columns: MinuteColumns,
    private readonly counts: CountsOf,
    retained: Float64Array,
    private readonly idLimit: number,
  ) {
    let alive = 0;
    for (const count of retained) if (count > 0) alive++;
    this.alive = alive;
  }

  /** Keys with events among offsets 0..end-1. */
  live(end: number): number {
    this.seen ??= this.walk(0, this.columns.depth);
    return this.seen[end]!;
  }

  /** Keys with events among offsets start..end-1. */
  between(start: number, end: number): number {
    return this.walk(start, end)[end - start]!;
  }

  /** [i] = keys with events among offsets start..start+i-1. */
  private walk(start: number, end: number): PrefixColumn {
    const met = new Uint8Array(this.idLimit);
    const column = new Float64Array(end - start + 1);
    let found = 0;
    for (let k = start; k < end; k++) {
      const bucket = this.columns.buckets[k];
      if (bucket !== undefined && found < this.alive) {
        const perId = this.counts(bucket);
        for (let id = 0; id < perId.length; id++) {
          if (perId[id] !== 0 && met[id] === 0) {
            met[id] = 1;
            found++;
          }
        }
      }
      column[k - start + 1] = found;
    }
    return column;
  }
}
