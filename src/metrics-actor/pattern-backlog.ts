/**
 * @module Runs in the metrics actor thread: after a restore whose checkpoint held PATTERN
 * partitions, the events counted before the rules are set again (the replay after the mark, the
 * batches held during it, those of the first moments after ready) wait here, to be observed by the
 * restored partitions once the first set-rules has put them back. Bounded: past MAX_EVENTS the
 * oldest half goes, logged (a sequence spanning them may then be missed, never invented).
 */
import type { MetricEvent } from '../domain/event.ts';

/** About 20 s of ingest at 5,000 events/s: more than a checkpoint period (10 s by default). */
export const PATTERN_BACKLOG_MAX_EVENTS = 100_000;

export class PatternBacklog {
  private events: MetricEvent[] = [];
  /** Dropped past the bound, oldest first. */
  dropped = 0;

  push(events: readonly MetricEvent[]): void {
    for (const event of events) this.events.push(event);
    if (this.events.length <= PATTERN_BACKLOG_MAX_EVENTS) return;
    const drop = this.events.length - PATTERN_BACKLOG_MAX_EVENTS / 2;
    this.events.splice(0, drop);
    this.dropped += drop;
  }

  /** Everything held, in order; the backlog is empty after. */
  drain(): MetricEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }
}
