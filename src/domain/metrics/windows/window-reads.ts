/**
 * @module The windowed values a set of rules reads, interned: each distinct (metric, window, last or
 * previous window) gets a slot when the rules are prepared, so that one evaluation tick computes each
 * value once (window-table.ts) and the evaluator reads it by number, without building keys; and
 * WindowedMetrics, what answers those values (the aggregator).
 */
import type { WatchedKeys } from '../state/last-event-times.ts';
import type { IndexedMetric, MetricRef } from './metric-names.ts';
import { groupReads, type ReadGroups } from './read-groups.ts';
import { clampWindow, type WindowRead } from './window-read.ts';

/** The values of interned reads at one moment, by slot. */
export interface SlotValues {
  get(slot: number): number;
}

/**
 * What the rule evaluator reads: metrics over windows (the last N minutes = the current, partial
 * minute plus the N-1 before it, DESIGN 4, or the N before those), and whether a key has been seen.
 */
export interface WindowedMetrics {
  /**
   * The values of `reads` at one moment (one clock reading), each computed at most once. Read them
   * at once: they are not kept up to date.
   */
  valuesOf(reads: WindowReads): SlotValues;
  /** True when some event since start or the last reset used this key. */
  hasKey(map: IndexedMetric, key: string): boolean;
}

export class WindowReads {
  /** Slots by metric (scalar name, or map then key), then by window (2 N, + 1 for the one before). */
  private readonly scalars = new Map<string, Map<number, number>>();
  private readonly indexed = new Map<IndexedMetric, Map<string, Map<number, number>>>();
  /** Silence reads: by `<scope> <key>`, then by activeSince (their window means nothing). */
  private readonly silences = new Map<string, Map<number, number>>();
  private readonly watched = { types: new Set<string>(), sources: new Set<string>() };
  private readonly reads: WindowRead[] = [];
  private grouped: ReadGroups | undefined;

  /**
   * The slot of `ref` over the last `windowMinutes` (or the ones before them), interned. A silence
   * metric has no window: its reads are interned by `activeSince` instead (see WindowRead).
   */
  slot(
    ref: MetricRef,
    windowMinutes: number,
    previous: boolean,
    activeSince = Number.NEGATIVE_INFINITY,
  ): number {
    if (ref.kind === 'silence') return this.silenceSlot(ref, activeSince);
    const minutes = clampWindow(windowMinutes);
    const windows = this.windowsOf(ref);
    const window = 2 * minutes + (previous ? 1 : 0);
    let slot = windows.get(window);
    if (slot === undefined) {
      slot = this.reads.length;
      const start = previous ? minutes : 0;
      this.reads.push({
        ref,
        minutes,
        previous,
        start,
        end: start + minutes,
        activeSince: Number.NEGATIVE_INFINITY,
      });
      windows.set(window, slot);
    }
    return slot;
  }

  private silenceSlot(ref: Extract<MetricRef, { kind: 'silence' }>, activeSince: number): number {
    const name = `${ref.scope} ${ref.key}`;
    let bySince = this.silences.get(name);
    if (bySince === undefined) {
      bySince = new Map();
      this.silences.set(name, bySince);
    }
    let slot = bySince.get(activeSince);
    if (slot === undefined) {
      slot = this.reads.length;
      this.reads.push({ ref, minutes: 1, previous: false, start: 0, end: 0, activeSince });
      bySince.set(activeSince, slot);
      if (ref.scope === 'type') this.watched.types.add(ref.key);
      if (ref.scope === 'source') this.watched.sources.add(ref.key);
    }
    return slot;
  }

  /** The types and sources whose silence these reads ask for. */
  watchedKeys(): WatchedKeys {
    return this.watched;
  }

  private windowsOf(ref: Exclude<MetricRef, { kind: 'silence' }>): Map<number, number> {
    let byName = this.scalars;
    let name: string;
    if (ref.kind === 'scalar') {
      name = ref.name;
    } else {
      name = ref.key;
      byName = this.indexed.get(ref.map) ?? new Map<string, Map<number, number>>();
      this.indexed.set(ref.map, byName);
    }
    let windows = byName.get(name);
    if (windows === undefined) {
      windows = new Map();
      byName.set(name, windows);
    }
    return windows;
  }

  get size(): number {
    return this.reads.length;
  }

  /** The reads grouped for the table's passes; derived again only after new reads. */
  groups(): ReadGroups {
    if (this.grouped?.size !== this.reads.length) this.grouped = groupReads(this.reads);
    return this.grouped;
  }

  /** The read behind `slot` (one this object handed out). */
  at(slot: number): WindowRead {
    const read = this.reads[slot];
    if (read === undefined) throw new RangeError(`No window read in slot ${slot}`);
    return read;
  }
}
