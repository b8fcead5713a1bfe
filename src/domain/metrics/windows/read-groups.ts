/**
 * @module The reads of a WindowReads grouped for the per-tick passes: the reads of one indexed map
 * (every key of eventsByType, of eventsBySource) share one walk back over the minutes, the reads of
 * latency percentiles one sweep of merged histograms, and the live (last-N-minutes) reads of unique
 * users one merge grown from the current minute back. Derived once per rule set (WindowReads.groups).
 */
import { RETENTION_MINUTES } from '../metrics-limits.ts';
import type { WindowRead } from './window-read.ts';

/** The reads of the keys of eventsByType or of eventsBySource. */
export interface KeyReads {
  readonly keys: readonly string[];
  /** Every start and end offset of each key's reads, without repeats, and the key of each. */
  readonly bounds: Int32Array;
  readonly keyOf: Int32Array;
  /** Indexes in `bounds`, by bound ascending. */
  readonly byBound: Int32Array;
  /** Per read: its slot, and the index in `bounds` of its start and of its end. */
  readonly slots: Int32Array;
  readonly startAt: Int32Array;
  readonly endAt: Int32Array;
  /** The deepest bound. */
  readonly depth: number;
}

export interface ReadGroups {
  /** How many reads these groups cover (the WindowReads may grow). */
  readonly size: number;
  /** The deepest offset any read reaches (its end), at most the retention. */
  readonly depth: number;
  readonly types: KeyReads;
  readonly sources: KeyReads;
  /** Every read of latencyP50 / P95 / P99, by end then start: the order of one sweep back. */
  readonly percentiles: readonly number[];
  /** Live reads of uniqueUsers, by window ascending. */
  readonly liveUsers: readonly number[];
}

const PERCENTILES: ReadonlySet<string> = new Set(['latencyP50', 'latencyP95', 'latencyP99']);

/** Groups `reads`, where a read's slot is its index. */
export function groupReads(reads: readonly WindowRead[]): ReadGroups {
  const at = (slot: number): WindowRead => reads[slot]!;
  const types = new Map<string, number[]>();
  const sources = new Map<string, number[]>();
  const percentiles: number[] = [];
  const liveUsers: number[] = [];
  let depth = 0;
  for (let slot = 0; slot < reads.length; slot++) {
    const { ref, previous, end } = at(slot);
    depth = Math.max(depth, Math.min(end, RETENTION_MINUTES));
    if (ref.kind === 'indexed') {
      if (ref.map === 'eventsBySeverity') continue;
      const byKey = ref.map === 'eventsByType' ? types : sources;
      const slots = byKey.get(ref.key) ?? [];
      if (slots.length === 0) byKey.set(ref.key, slots);
      slots.push(slot);
    } else if (ref.kind === 'silence') {
      continue; // one lookup each (window-table.ts), no pass
    } else if (PERCENTILES.has(ref.name)) {
      percentiles.push(slot);
    } else if (!previous && ref.name === 'uniqueUsers') {
      liveUsers.push(slot);
    }
  }
  const byEnd = (a: number, b: number): number =>
    at(a).end - at(b).end || at(a).start - at(b).start;
  return {
    size: reads.length,
    depth,
    types: keyReads(reads, types),
    sources: keyReads(reads, sources),
    percentiles: percentiles.sort(byEnd),
    liveUsers: liveUsers.sort(byEnd),
  };
}

function keyReads(
  reads: readonly WindowRead[],
  byKey: ReadonlyMap<string, readonly number[]>,
): KeyReads {
  const bounds: number[] = [];
  const keyOf: number[] = [];
  const slots: number[] = [];
  const startAt: number[] = [];
  const endAt: number[] = [];
  [...byKey.values()].forEach((keySlots, key) => {
    const first = bounds.length;
    const offsets = new Set<number>();
    for (const slot of keySlots) offsets.add(reads[slot]!.start).add(reads[slot]!.end);
    for (const offset of offsets) {
      bounds.push(offset);
      keyOf.push(key);
    }
    for (const slot of keySlots) {
      const { start, end } = reads[slot]!;
      slots.push(slot);
      startAt.push(bounds.indexOf(start, first));
      endAt.push(bounds.indexOf(end, first));
    }
  });
  const byBound = bounds.map((_, i) => i).sort((a, b) => bounds[a]! - bounds[b]!);
  return {
    keys: [...byKey.keys()],
    bounds: Int32Array.from(bounds),
    keyOf: Int32Array.from(keyOf),
    byBound: Int32Array.from(byBound),
    slots: Int32Array.from(slots),
    startAt: Int32Array.from(startAt),
    endAt: Int32Array.from(endAt),
    depth: bounds.reduce((deepest, bound) => Math.max(deepest, bound), 0),
  };
}
