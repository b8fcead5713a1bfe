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
import type { DetailedMetricEvent } from '../../../event.ts';
import type { PatternConfig } from './pattern-config.ts';
import { partitionReader, predicateOf, type EventPredicate } from './pattern-predicate.ts';

/**
 * A partial match: per completed step its first and last events, [id, time, id, time], so that
 * trail[1] is when the partial started. Immutable, shared by the partials that extend it.
 */
type Trail = readonly number[];

/** A strict step's event that followed no fresh completion: it fills a place and starts nothing. */
const NONE: Trail = [];
const startOf = (trail: Trail): number => trail[1] as number;

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

/**
 * One key's state in two flat arrays (a few hundred bytes rather than an object per step):
 * `refs` holds per step the latest-start partial that completed it (`best`, which relaxed
 * successors extend), then with a strict step per step the partial the key's latest event
 * completed (`fresh`), then per counted step (times.min > 1) the partial each of its last `min`
 * events could extend (null: the event starts one itself). `nums` holds per counted step its
 * ring's next position and fill, then the ids and the times of those events.
 */
class Partition {
  lastSeen: number;
  /** `absent` rules: a completed sequence waiting for its deadline. */
  pending: PatternMatch | undefined = undefined;
  readonly refs: (Trail | null | undefined)[];
  readonly nums: number[];

  constructor(layout: Layout, at: number) {
    this.lastSeen = at;
    this.refs = new Array<Trail | null | undefined>(layout.refs).fill(undefined);
    this.nums = new Array<number>(layout.nums).fill(0);
  }
}

/** Where each step's parts lie in a Partition's arrays. */
interface Layout {
  readonly refs: number;
  readonly nums: number;
  /** The first `fresh` slot (-1: no strict step, none kept). */
  readonly fresh: number;
  /** Per step: the first ring slot in refs and in nums (-1: not counted). */
  readonly ringRefs: readonly number[];
  readonly ringNums: readonly number[];
}

function layoutOf(mins: readonly number[], anyStrict: boolean): Layout {
  const n = mins.length;
  let refs = anyStrict ? 2 * n : n;
  let nums = 0;
  const ringRefs: number[] = [];
  const ringNums: number[] = [];
  for (const min of mins) {
    ringRefs.push(min > 1 ? refs : -1);
    ringNums.push(min > 1 ? nums : -1);
    if (min > 1) {
      refs += min;
      nums += 2 + 2 * min;
    }
  }
  return { refs, nums, fresh: anyStrict ? n : -1, ringRefs, ringNums };
}

interface CompiledStep {
  readonly matches: EventPredicate;
  readonly min: number;
  readonly strict: boolean;
}

/**
 * A matcher's state as a metrics checkpoint keeps it (engine-state.ts): per partition, in its
 * least-recently-used order, [key, lastSeen, pending, refs, nums]. `v8.serialize` keeps the trails
 * that partials share shared; the empty NONE trail comes back as a fresh empty array, which
 * restore() maps to NONE again (its identity is what marks it).
 */
export interface MatcherState {
  readonly partitions: readonly (readonly [
    string,
    number,
    PatternMatch | null,
    readonly (Trail | null | undefined)[],
    readonly number[],
  ])[];
  readonly deadlines: readonly (readonly [string, number])[];
  readonly pendingCount: number;
  readonly evicted: number;
}

export class PatternMatcher {
  private readonly partitions = new Map<string, Partition>();
  private readonly steps: readonly CompiledStep[];
  private readonly mins: readonly number[];
  private readonly layout: Layout;
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
    this.layout = layoutOf(this.mins, this.anyStrict);
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

  save(): MatcherState {
    return {
      partitions: [...this.partitions].map(
        ([key, p]) => [key, p.lastSeen, p.pending ?? null, p.refs, p.nums] as const,
      ),
      deadlines: this.deadlines,
      pendingCount: this.pendingCount,
      evicted: this.evicted,
    };
  }

  /** Into a matcher of the same config (same layout); partitions of another layout are skipped. */
  restore(state: MatcherState): void {
    this.partitions.clear();
    for (const [key, lastSeen, pending, refs, nums] of state.partitions) {
      if (refs.length !== this.layout.refs || nums.length !== this.layout.nums) continue;
      const p = new Partition(this.layout, lastSeen);
      p.pending = pending ?? undefined;
      for (let i = 0; i < refs.length; i++) {
        const ref = refs[i];
        p.refs[i] = Array.isArray(ref) && ref.length === 0 ? NONE : ref;
      }
      for (let i = 0; i < nums.length; i++) p.nums[i] = nums[i]!;
      this.partitions.set(key, p);
    }
    this.deadlines = state.deadlines.map(([key, at]) => [key, at]);
    this.pendingCount = state.pendingCount;
    this.evicted = state.evicted;
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
      partition = new Partition(this.layout, at);
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
    const { refs } = p;
    const fresh = this.layout.fresh;
    for (let i = n - 1; i >= 0; i--) {
      const step = this.steps[i] as CompiledStep;
      const counted = step.min > 1;
      let completed: Trail | undefined;
      if (!hits[i]) {
        if (step.strict && counted) this.clearRing(p, i);
      } else {
        // What this event could extend: nothing before a first step (it starts a partial).
        const prev = i === 0 ? null : step.strict ? refs[fresh + i - 1] : refs[i - 1];
        const usable =
          prev === null || (prev !== undefined && prev !== NONE && at - startOf(prev) <= within);
        if (counted) {
          if (usable) this.push(p, i, prev ?? null, id, at);
          else if (step.strict) this.push(p, i, NONE, id, at);
          completed = usable || step.strict ? this.completion(p, i, id, at) : undefined;
        } else if (usable) {
          completed = prev === null ? [id, at, id, at] : [...(prev ?? []), id, at, id, at];
        }
        if (completed !== undefined && at - startOf(completed) > within) completed = undefined;
      }
      if (i === n - 1 && completed !== undefined) {
        this.clear(p);
        return this.completed(p, key, completed, at);
      }
      if (fresh >= 0) refs[fresh + i] = completed;
      const best = refs[i];
      if (completed !== undefined && (best == null || startOf(completed) >= startOf(best)))
        refs[i] = completed;
    }
    return null;
  }

  /** Step i's ring takes an event and the partial it could extend (null: it starts one). */
  private push(p: Partition, i: number, rec: Trail | null, id: number, at: number): void {
    const min = this.mins[i] as number;
    const r = this.layout.ringRefs[i] as number;
    const b = this.layout.ringNums[i] as number;
    const { nums } = p;
    const head = nums[b] as number;
    p.refs[r + head] = rec;
    nums[b + 2 + head] = id;
    nums[b + 2 + min + head] = at;
    nums[b] = (head + 1) % min;
    if ((nums[b + 1] as number) < min) nums[b + 1] = (nums[b + 1] as number) + 1;
  }

  private clearRing(p: Partition, i: number): void {
    const b = this.layout.ringNums[i] as number;
    if (p.nums[b + 1] === 0) return;
    p.nums[b + 1] = 0;
    const r = this.layout.ringRefs[i] as number;
    p.refs.fill(undefined, r, r + (this.mins[i] as number));
  }

  /** The step completed by the event just pushed (id, at), from its ring's oldest entry. */
  private completion(p: Partition, i: number, id: number, at: number): Trail | undefined {
    const min = this.mins[i] as number;
    const b = this.layout.ringNums[i] as number;
    if ((p.nums[b + 1] as number) < min) return undefined;
    const o = p.nums[b] as number; // full: the next write position holds the oldest entry
    const rec = p.refs[(this.layout.ringRefs[i] as number) + o];
    if (rec === NONE || rec === undefined) return undefined;
    const first = [p.nums[b + 2 + o] as number, p.nums[b + 2 + min + o] as number, id, at];
    return rec === null ? first : [...rec, ...first];
  }

  /** Forgets every partial of the key (after a match: one match per completed sequence). */
  private clear(p: Partition): void {
    p.refs.fill(undefined);
    p.nums.fill(0);
  }

  private completed(p: Partition, key: string, trail: Trail, at: number): PatternMatch | null {
    const match: PatternMatch = { partitionKey: key, trail, completedAt: at };
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
