/**
 * @module Runs in the metrics actor thread (workers/metrics-actor.worker.ts), on its own database
 * connection: checkpoints the actor's state every METRICS_CHECKPOINT_SECONDS and at stop, and at
 * start restores the newest checkpoint and replays the stored events after its mark (issue 33,
 * docs/metrics.md "Restarts"). The state is taken and encoded synchronously, between two
 * batches, so it is one consistent moment; only the write waits on the database.
 */
import type { Aggregator } from '../domain/metrics/aggregator.ts';
import {
  aggregatorToPlain,
  restoreAggregator,
  sameLimits,
} from '../domain/metrics/checkpoint/aggregator-checkpoint.ts';
import {
  CountedEvents,
  MARK_OVERLAP_MS,
  markHas,
  type CountedMark,
} from '../domain/metrics/checkpoint/counted-mark.ts';
import {
  CHECKPOINT_FORMAT,
  decodeCheckpoint,
  encodeCheckpoint,
  type CheckpointContent,
} from '../domain/metrics/checkpoint/metrics-checkpoint.ts';
import type { RestoredFrom } from '../domain/metrics/snapshot/snapshot.ts';
import type { MetricEvent } from '../domain/event.ts';
import type { Sql } from '../db/connect.ts';
import {
  loadCheckpoint,
  replayStoredEvents,
  saveCheckpoint,
} from '../db/metrics-checkpoint-repository.ts';
import type { Logger } from '../log.ts';

/** Without a usable checkpoint, the stored events of this many last minutes are counted again. */
export const REBUILD_MINUTES = 60;

/** What a checkpoint carries besides the aggregator (the rule engine's state). */
export interface CheckpointExtras {
  /** Taken with the aggregator, in the same synchronous step. */
  take(): unknown;
  /** Given a restored checkpoint's extras (before the events after its mark are replayed). */
  restore(extras: unknown): void;
}

export interface CheckpointerOptions {
  readonly sql: Sql;
  /** 'single' alone; the instance id in a cluster. */
  readonly owner: string;
  readonly aggregator: Aggregator;
  readonly extras: CheckpointExtras;
  readonly log: Logger;
  readonly now: () => number;
}

export interface CheckpointStats {
  readonly bytes: number;
  /** Time the actor thread spent taking and encoding it (the write itself waits off-thread). */
  readonly encodeMs: number;
}

export class MetricsCheckpointer {
  /** The ids and receivedAt of what is counted: the checkpoint's high-water mark. */
  readonly counted: CountedEvents;
  /**
   * After a restore, for MARK_OVERLAP_MS: the ids counted by the checkpoint or the replay. A live
   * batch committed before the replay's read may reach the actor after it: its events are skipped.
   */
  private recent: Set<number> | null = null;
  private recentUntil = 0;
  private writing: Promise<void> | null = null;
  last: CheckpointStats | null = null;

  constructor(private readonly options: CheckpointerOptions) {
    this.counted = new CountedEvents(options.aggregator.since);
  }

  /**
   * Hot path: counts a committed batch (`ids[i]` is `events[i]`'s stored id; absent for batches
   * whose ids are not known, which are counted but not marked), skipping what a restore counted.
   * Answers the events counted now (the rule engine observes those).
   */
  count(
    events: readonly MetricEvent[],
    ids: readonly number[] | undefined,
  ): readonly MetricEvent[] {
    let fresh = events;
    if (this.recent !== null && ids !== undefined) {
      if (this.options.now() > this.recentUntil) this.recent = null;
      else {
        const recent = this.recent;
        const all = ids;
        const keptIds: number[] = [];
        fresh = events.filter((_, i) => {
          const seen = recent.has(all[i]!);
          if (!seen) keptIds.push(all[i]!);
          return !seen;
        });
        ids = keptIds;
      }
    }
    this.options.aggregator.record(fresh);
    if (ids !== undefined) {
      for (let i = 0; i < fresh.length; i++) this.counted.add(ids[i]!, fresh[i]!.receivedAt);
    }
    return fresh;
  }

  /** A reset: nothing before now is counted or replayed any more. */
  reset(): void {
    this.counted.reset(this.options.aggregator.since);
    this.recent = null;
  }

  /**
   * Loads the newest checkpoint and replays the stored events after its mark; without a usable
   * one (missing, corrupt, another format or other caps: logged), counts the stored events of the
   * last REBUILD_MINUTES. Never throws for a bad checkpoint; a database failure while replaying
   * is logged and the actor starts with what it counted.
   */
  async restore(): Promise<RestoredFrom> {
    const { sql, owner, aggregator, log } = this.options;
    const started = performance.now();
    let checkpointAt: number | null = null;
    let reason: string | null = null;
    let from = this.options.now() - REBUILD_MINUTES * 60_000;
    let counted: CountedMark | null = null;
    try {
      const stored = await loadCheckpoint(sql, owner);
      if (stored === null) reason = 'no checkpoint';
      else {
        const decoded = decodeCheckpoint(stored.body);
        if (!decoded.ok) reason = decoded.reason;
        else if (!sameLimits(decoded.content.limits, aggregator.limits))
          reason = 'the checkpoint was counted under other METRICS_MAX_* caps';
        else {
          const { content } = decoded;
          restoreAggregator(aggregator, content.aggregator, content.limits);
          this.options.extras.restore(content.rules);
          this.counted.restore(content.mark, aggregator.since);
          checkpointAt = content.takenAt;
          from = content.mark.from;
          counted = content.mark;
        }
      }
    } catch (error) {
      reason = `the checkpoint could not be read or restored: ${(error as Error).message}`;
      // A restore that failed half-way leaves nothing of it: counted again from the events.
      aggregator.reset();
    }
    if (reason !== null) {
      log.warn({ reason, owner }, 'metrics rebuilt from stored events');
      // What is rebuilt runs from `from`: a later mark never starts after it.
      this.counted.reset(from);
    }
    // A live batch may repeat only events committed just before the replay's read: received
    // within the overlap before now. Only those ids are kept for it (a rebuild replays an hour).
    const recentFrom = this.options.now() - MARK_OVERLAP_MS;
    const recent = new Set<number>();
    const mark = counted;
    let replayedEvents = 0;
    try {
      await replayStoredEvents(sql, from, (events, ids) => {
        const fresh: MetricEvent[] = [];
        const freshIds: number[] = [];
        for (let i = 0; i < events.length; i++) {
          // The cursor reads each row once: only the checkpoint's ids can repeat.
          if (mark !== null && markHas(mark, ids[i]!)) continue;
          if (events[i]!.receivedAt >= recentFrom) recent.add(ids[i]!);
          fresh.push(events[i]!);
          freshIds.push(ids[i]!);
        }
        replayedEvents += fresh.length;
        aggregator.record(fresh);
        for (let i = 0; i < fresh.length; i++) this.counted.add(freshIds[i]!, fresh[i]!.receivedAt);
      });
    } catch (error) {
      log.error({ err: error }, 'replaying stored events after the checkpoint failed');
    }
    this.recent = recent;
    this.recentUntil = this.options.now() + MARK_OVERLAP_MS;
    const restoreMs = Math.round(performance.now() - started);
    log.info({ checkpointAt, replayedEvents, restoreMs, reason }, 'metrics restored');
    const restored = {
      checkpointAt: checkpointAt === null ? null : new Date(checkpointAt).toISOString(),
      replayedEvents,
      restoredAt: new Date(this.options.now()).toISOString(),
      restoreMs,
    };
    return reason === null
      ? restored
      : { ...restored, rebuilt: { reason, rebuiltMinutes: REBUILD_MINUTES } };
  }

  /** Takes and writes a checkpoint; one write at a time (a period that finds one running waits). */
  async write(): Promise<void> {
    if (this.writing !== null) return this.writing;
    const { sql, owner, aggregator, extras, now } = this.options;
    const started = performance.now();
    const mark = this.counted.mark();
    const content: CheckpointContent = {
      takenAt: now(),
      limits: aggregator.limits,
      mark,
      aggregator: aggregatorToPlain(aggregator),
      rules: extras.take(),
    };
    const body = encodeCheckpoint(content);
    this.last = { bytes: body.length, encodeMs: performance.now() - started };
    this.writing = saveCheckpoint(sql, owner, {
      format: CHECKPOINT_FORMAT,
      takenAt: content.takenAt,
      replayFrom: mark.from,
      body,
    }).finally(() => {
      this.writing = null;
    });
    return this.writing;
  }
}
