/**
 * @module When the newest event of every type and source, and of each one, was received (metrics
 * actor): what the producer-silent metrics read (secondsSinceLastEvent...). Kept apart from
 * MetricsState: a metrics reset zeroes counts, not the fact that a producer last sent at some
 * time (a restart reads that back from storage too). Memory is bounded: at most `maxEventTypes`
 * types and `maxSources` sources plus the keys that rules watch, which are always kept.
 */
import type { MetricEvent } from '../../event.ts';
import type { MetricsLimits } from '../metrics-limits.ts';

/** What a producer-silent metric watches: every event (key ''), one type, or one source. */
export type SilenceScope = 'all' | 'type' | 'source';

/** The keys rules read, per scope (WindowReads.watchedKeys). */
export interface WatchedKeys {
  readonly types: ReadonlySet<string>;
  readonly sources: ReadonlySet<string>;
}

/** Keys whose newest stored event the actor asks storage for (the every-event time comes too). */
export interface KeyLookup {
  readonly types: readonly string[];
  readonly sources: readonly string[];
}

/** Newest stored events per key, as read from storage when the actor (re)starts (epoch ms). */
export interface NewestEvents {
  readonly all: number | null;
  readonly types: readonly (readonly [string, number])[];
  readonly sources: readonly (readonly [string, number])[];
}

const NONE: WatchedKeys = { types: new Set(), sources: new Set() };

export class LastEventTimes {
  private all = Number.NEGATIVE_INFINITY;
  private readonly types = new Map<string, number>();
  private readonly sources = new Map<string, number>();
  private watched = NONE;

  /** `startedAt`: epoch ms from which a key with no event yet counts (the actor's start). */
  constructor(
    private readonly limits: Pick<MetricsLimits, 'maxEventTypes' | 'maxSources'>,
    readonly startedAt: number,
  ) {}

  /** The keys rules read: kept whatever the caps (a key past them is not forgotten). */
  watch(keys: WatchedKeys): void {
    this.watched = keys;
  }

  /**
   * Hot path: a batch of stored events, by receipt time (one after `now` counts as `now`, as in
   * the counts). A key new past its cap and not watched is not kept.
   */
  record(events: readonly MetricEvent[], now: number): void {
    const { types, sources, watched } = this;
    for (const event of events) {
      const at = event.receivedAt > now ? now : event.receivedAt;
      if (Number.isNaN(at)) continue;
      // Batches from several storage workers may interleave: times only move forward.
      if (at > this.all) this.all = at;
      keep(types, event.eventType, at, this.limits.maxEventTypes, watched.types);
      keep(sources, event.source, at, this.limits.maxSources, watched.sources);
    }
  }

  /** Times read from storage: each moves forward only (events recorded meanwhile are newer). */
  seed(newest: NewestEvents): void {
    if (newest.all !== null && newest.all > this.all) this.all = newest.all;
    for (const [key, at] of newest.types) {
      keep(this.types, key, at, this.limits.maxEventTypes, this.watched.types);
    }
    for (const [key, at] of newest.sources) {
      keep(this.sources, key, at, this.limits.maxSources, this.watched.sources);
    }
  }

  /** Epoch ms of the newest event of the scope's key, or undefined when none is known. */
  lastAt(scope: SilenceScope, key: string): number | undefined {
    if (scope === 'all') return this.all === Number.NEGATIVE_INFINITY ? undefined : this.all;
    return (scope === 'type' ? this.types : this.sources).get(key);
  }

  /**
   * Seconds (ms precision) from the newest event of the key to `now`; with none yet, from the
   * later of start and `activeSince` (when the rule reading it became ACTIVE). Never negative.
   */
  secondsSince(scope: SilenceScope, key: string, activeSince: number, now: number): number {
    const from = this.lastAt(scope, key) ?? Math.max(this.startedAt, activeSince);
    return Math.max(0, now - from) / 1000;
  }
}

function keep(
  times: Map<string, number>,
  key: string,
  at: number,
  cap: number,
  watched: ReadonlySet<string>,
): void {
  const before = times.get(key);
  if (before === undefined) {
    if (times.size < cap || watched.has(key)) times.set(key, at);
  } else if (at > before) times.set(key, at);
}
