/**
 * @module The PATTERN matcher of one rule: "latest start time per step" (research-next 4). Per
 * partition key it keeps, for each step, the latest start of any partial match that completed the
 * step (a later start dominates an earlier one for every future window test, because conditions
 * read only the current event), and for a counted step a ring of its last `times.min` events. So
 * it finds a sequence iff one exists, holding a few numbers per step rather than partial-match
 * lists. On a match the partition's state is cleared: one match per completed sequence, no storm
 * of overlapping ones. Partitions idle past the window are swept on each tick; past
 * `maxPartitions` the least recently used is evicted and counted. Pure: time comes from the
 * events (receivedAt) and the tick's argument.
 */
import type { DetailedMetricEvent } from '../../event.ts';
import type { PatternConfig } from './pattern-config.ts';
import { partitionReader, predicateOf, type EventPredicate } from './pattern-predicate.ts';

/**
 * A partial match: when its first event arrived, and per completed step its first and last
 * events as [id, time, id, time] (immutable, shared by the partials that extend it).
 */
interface Partial {
  readonly start: number;
  readonly trail: readonly number[];
}

/** A strict step's event that followed no fresh completion: it fills a place and starts nothing. */
const NONE: Partial = { start: Number.NaN, trail: [] };

/** A completed sequence (or, for an `absent` rule, one whose deadline passed without the event). */
export interface PatternMatch {
  readonly partitionKey: string;
  /** Per step: [firstEventId, firstAt, lastEventId, lastAt]. */
  readonly trail: readonly number[];
  /** When the sequence completed (its last event's receivedAt). */
  readonly completedAt: number;
  /** `absent` rules: the deadline at which it fired. */
  readonly deadline?: number;
}

/** The last `size` events of a counted step, each with the partial it could extend (null: itself). */
class Ring {
  private readonly recs: (Partial | null)[];
  private readonly ids: Float64Array;
  private readonly times: Float64Array;
  private head = 0;
  private count = 0;

  constructor(private readonly size: number) {
    this.recs = new Array<Partial | null>(size).fill(null);
    this.ids = new Float64Array(size);
    this.times = new Float64Array(size);
  }

  push(rec: Partial | null, id: number, at: number): void {
    this.recs[this.head] = rec;
    this.ids[this.head] = id;
    this.times[this.head] = at;
    this.head = (this.head + 1) % this.size;
    if (this.count < this.size) this.count++;
  }

  clear(): void {
    if (this.count === 0) return;
    this.count = 0;
    this.recs.fill(null);
  }

  /** The step completed by the event just pushed (id, at), from its oldest entry; or undefined. */
  completion(id: number, at: number): Partial | undefined {
    if (this.count < this.size) return undefined;
    const o = this.head; // full: the next write position holds the oldest entry
    const rec = this.recs[o] ?? null;
    if (rec === NONE) return undefined;
    const firstId = this.ids[o] as number;
    const firstAt = this.times[o] as number;
    return {
      start: rec === null ? firstAt : rec.start,
      trail: [...(rec?.trail ?? []), firstId, firstAt, id, at],
    };
  }
}

class Partition {
  lastSeen: number;
  /** Per step: the latest-start partial that completed it (relaxed successors extend it). */
  readonly best: (Partial | undefined)[];
  /** Per step: the partial the latest event of the partition completed (strict successors). */
  readonly fresh: (Partial | undefined)[];
  /** Per counted step (times.min > 1): its ring. */
  readonly rings: (Ring | undefined)[];
  /** `absent` rules: a completed sequence waiting for its deadline. */
  pending: PatternMatch | undefined;

  constructor(mins: readonly number[], at: number) {
    this.lastSeen = at;
    this.best = new Array<Partial | undefined>(mins.length).fill(undefined);
    this.fresh = new Array<Partial | undefined>(mins.length).fill(undefined);
    this.rings = mins.map((min) => (min > 1 ? new Ring(min) : undefined));
  }

  reset(): void {
    this.best.fill(undefined);
    this.fresh.fill(undefined);
    for (const ring of this.rings) ring?.clear();
  }
}

interface CompiledStep {
  readonly matches: EventPredicate;
  readonly min: number;
  readonly strict: boolean;
}

export class PatternMatcher {
  private readonly partitions = new Map<string, Partition>();
  private readonly steps: readonly CompiledStep[];
  private readonly mins: readonly number[];
  private readonly keyOf: (e: DetailedMetricEvent) => string | null;
  private readonly withinMs: number;
  private readonly absentMs: number;
  private readonly absentMatches: EventPredicate | null;
  /** Any strict step: every event of a partition then counts (it breaks contiguity). */
  private readonly anyStrict: boolean;
  /** `absent` rules: [key, deadline] in the order set (deadlines then come in order too). */
  private deadlines: [string, number][] = [];
  private pendingCount = 0;
  /** Partitions dropped past maxPartitions since the rule was loaded. */
  evicted = 0;
  /** The event types any step or `absent` reads: the others never touch a relaxed rule. */
  readonly eventTypes: ReadonlySet<string>;

  constructor(private readonly config: PatternConfig) {
    this.steps = config.steps.map((s) => ({
      matches: predicateOf(s.eventType, s.where),
      min: s.times.min,
      strict: s.contiguity === 'strict',
    }));
    this.mins = config.steps.map((s) => s.times.min);
    this.keyOf = partitionReader(config.partitionBy);
    this.withinMs = config.withinMinutes * 60_000;
    this.absentMs = config.absent === undefined ? 0 : config.absent.withinMinutes * 60_000;
    this.absentMatches =
      config.absent === undefined
        ? null
        : predicateOf(config.absent.eventType, config.absent.where);
    this.anyStrict = this.steps.some((s) => s.strict);
    this.eventTypes = new Set([
      ...config.steps.map((s) => s.eventType),
      ...(config.absent === undefined ? [] : [config.absent.eventType]),
    ]);
  }

  /** Whether every event must be seen (a strict step), not only those of `eventTypes`. */
  get readsAllEvents(): boolean {
    return this.anyStrict;
  }

  size(): number {
    return this.partitions.size;
  }

  /** One committed event, in commit order; answers the sequence it completed, if any. */
  observe(event: DetailedMetricEvent): PatternMatch | null {
    const key = this.keyOf(event);
    if (key === null) return null;
    const at = event.receivedAt;
    let partition = this.partitions.get(key);
    const steps = this.steps;
    const n = steps.length;
    let any = false;
    const hits = new Array<boolean>(n);
    for (let i = 0; i < n; i++) {
      const hit = (steps[i] as CompiledStep).matches(event);
      hits[i] = hit;
      any ||= hit;
    }
    if (partition === undefined) {
      // Only a first step starts anything: the other events of an unknown key cost no memory.
      if (!hits[0]) return null;
      partition = new Partition(this.mins, at);
      this.partitions.set(key, partition);
      if (this.partitions.size > this.config.maxPartitions) this.evictOldest();
    } else {
      if (partition.pending !== undefined && this.absentMatches?.(event) === true) {
        partition.pending = undefined; // the awaited event came: no alert for that sequence
        this.pendingCount--;
      }
      if (!any && !this.anyStrict) return null;
      // Least recently used last: the map's order is the eviction and sweep order.
      this.partitions.delete(key);
      this.partitions.set(key, partition);
      if (at > partition.lastSeen) partition.lastSeen = at;
    }
    return this.advance(partition, key, event, hits, at);
  }

  /** Steps last to first, so that one event advances a partial match by one step only. */
  private advance(
    p: Partition,
    key: string,
    event: DetailedMetricEvent,
    hits: readonly boolean[],
    at: number,
  ): PatternMatch | null {
    const id = event.id;
    const within = this.withinMs;
    const n = this.steps.length;
    for (let i = n - 1; i >= 0; i--) {
      const step = this.steps[i] as CompiledStep;
      let completed: Partial | undefined;
      const ring = p.rings[i];
      if (!hits[i]) {
        if (step.strict) ring?.clear();
      } else {
        // What this event could extend: nothing before a first step (it starts a partial).
        const prev = i === 0 ? null : step.strict ? p.fresh[i - 1] : p.best[i - 1];
        const usable =
          prev === null || (prev !== undefined && prev !== NONE && at - prev.start <= within);
        if (ring !== undefined) {
          if (usable) ring.push(prev, id, at);
          else if (step.strict) ring.push(NONE, id, at);
          completed = usable || step.strict ? ring.completion(id, at) : undefined;
        } else if (usable) {
          completed =
            prev === null
              ? { start: at, trail: [id, at, id, at] }
              : { start: prev.start, trail: [...prev.trail, id, at, id, at] };
        }
        if (completed !== undefined && at - completed.start > within) completed = undefined;
      }
      if (i === n - 1 && completed !== undefined) {
        p.reset();
        return this.completed(p, key, completed, at);
      }
      p.fresh[i] = completed;
      const best = p.best[i];
      if (completed !== undefined && (best === undefined || completed.start >= best.start))
        p.best[i] = completed;
    }
    return null;
  }

  private completed(p: Partition, key: string, partial: Partial, at: number): PatternMatch | null {
    const match: PatternMatch = { partitionKey: key, trail: partial.trail, completedAt: at };
    if (this.absentMatches === null) {
      // Nothing left to remember for the key: it costs no memory until it starts again.
      this.partitions.delete(key);
      return match;
    }
    // An absence already awaited for this key is the earlier deadline: it stands (one alert).
    if (p.pending !== undefined) return null;
    const deadline = at + this.absentMs;
    p.pending = { ...match, deadline };
    this.pendingCount++;
    this.deadlines.push([key, deadline]);
    // Entries of cancelled absences linger until their deadline: compact when they dominate.
    if (this.deadlines.length > 2 * Math.max(1024, this.pendingCount))
      this.deadlines = this.deadlines.filter(
        ([k, d]) => this.partitions.get(k)?.pending?.deadline === d,
      );
    return null;
  }

  private evictOldest(): void {
    for (const [key, partition] of this.partitions) {
      this.partitions.delete(key);
      if (partition.pending !== undefined) this.pendingCount--;
      this.evicted++;
      return;
    }
  }

  /**
   * Each tick: the `absent` sequences whose deadline passed (they fire), then the partitions idle
   * for longer than a sequence could span are dropped (a key that stops sending leaves nothing).
   */
  tick(now: number, out: PatternMatch[]): void {
    let fired = 0;
    for (const [key, deadline] of this.deadlines) {
      if (deadline > now) break;
      fired++;
      const partition = this.partitions.get(key);
      const pending = partition?.pending;
      if (partition === undefined || pending === undefined || pending.deadline !== deadline)
        continue;
      partition.pending = undefined;
      this.pendingCount--;
      out.push(pending);
    }
    if (fired > 0) this.deadlines = this.deadlines.slice(fired);
    const cutoff = now - this.withinMs - this.absentMs;
    for (const [key, partition] of this.partitions) {
      if (partition.lastSeen >= cutoff) break;
      if (partition.pending !== undefined) this.pendingCount--;
      this.partitions.delete(key);
    }
  }
}
