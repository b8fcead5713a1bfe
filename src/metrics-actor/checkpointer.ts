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
import type { CheckpointTotals } from '../protocol/metrics-actor.ts';

/** Without a usable checkpoint, the stored events of this many last minutes are counted again. */
export const REBUILD_MINUTES = 60;

/** What a checkpoint carries besides the aggregator (the rule engine's state). */
export interface CheckpointExtras {
  /** Taken with the aggregator, in the same synchronous step. */
  take(): unknown;
  /** Given a restored checkpoint's extras (before the events after its mark are replayed). */
  restore(extras: unknown): void;
  /**
   * After restore(): whether the replayed events must carry what PATTERN reads (its partitions
   * were restored and go on with them); they are then given to replayed().
   */
  replayDetail(): boolean;
  /** The replayed events counted (not those the checkpoint had), in their replay order. */
  replayed(events: readonly MetricEvent[]): void;
}

export interface CheckpointerOptions {
  readonly sql: Sql;
  /** 'single' alone; the instance id in a cluster. */
  readonly owner: string;
  readonly aggregator: Aggregator;
  readonly extras: CheckpointExtras;
  readonly log: Logger;
  readonly now: () => number;
  /**
   * Without a usable checkpoint: count the stored events of the last REBUILD_MINUTES (alone), or
   * nothing (in a cluster, where a new incarnation's stream consumer reads the last 25 h again).
   */
  readonly rebuildWithoutCheckpoint: boolean;
}

export class MetricsCheckpointer {
  /** The ids and receivedAt of what is counted: the checkpoint's high-water mark. */
  readonly counted: CountedEvents;
  /**
   * After a restore: what it counted, as a mark (events received before `from`, and the ids in
   * it). A batch may bring those events again: a live one committed before the replay's read, and
   * in a cluster every peer's batch the stream delivers again (its start, or late after a broker
   * outage). They are skipped, for as long as the process runs.
   */
  private restored: CountedMark | null = null;
  private writing: Promise<void> | null = null;
  private totals = { written: 0, failed: 0, encodeSeconds: 0, lastBytes: 0 };

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
    const restored = this.restored;
    if (restored !== null && this.mayRepeat(restored, events, ids)) {
      const keptIds: number[] = [];
      fresh = events.filter((event, i) => {
        if (event.receivedAt < restored.from) return false;
        const id = ids?.[i];
        if (id === undefined) return true;
        if (markHas(restored, id)) return false;
        keptIds.push(id);
        return true;
      });
      if (ids !== undefined) ids = keptIds;
    }
    this.options.aggregator.record(fresh);
    if (ids !== undefined) {
      for (let i = 0; i < fresh.length; i++) this.counted.add(ids[i]!, fresh[i]!.receivedAt);
    }
    return fresh;
  }

  /**
   * Whether a batch may hold an event the restore counted: one received before the mark's start,
   * or one whose id is not past the mark's last. Live batches hold neither, so after a restore
   * they cost one pass of comparisons, not a filtered copy.
   */
  private mayRepeat(
    restored: CountedMark,
    events: readonly MetricEvent[],
    ids: readonly number[] | undefined,
  ): boolean {
    const lastId = restored.ranges[restored.ranges.length - 1] ?? Number.NEGATIVE_INFINITY;
    for (let i = 0; i < events.length; i++) {
      if (events[i]!.receivedAt < restored.from) return true;
      if (ids !== undefined && ids[i]! <= lastId) return true;
    }
    return false;
  }

  /** A reset: nothing before now is counted or replayed any more. */
  reset(): void {
    this.counted.reset(this.options.aggregator.since);
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
    // In a cluster the stream, read from its start by a new incarnation, counts the last 25 h
    // again: better than an hour of stored events, so nothing is rebuilt or skipped then.
    if (reason !== null && this.options.rebuildWithoutCheckpoint === false) {
      log.warn({ reason, owner }, 'no metrics checkpoint restored: the batch stream counts again');
      return this.restoredFrom(started, null, 0, reason, 0);
    }
    if (reason !== null) {
      log.warn({ reason, owner }, 'metrics rebuilt from stored events');
      // What is rebuilt runs from `from`: a later mark never starts after it.
      this.counted.reset(from);
    }
    const mark = counted;
    let replayedEvents = 0;
    const detail = reason === null && this.options.extras.replayDetail();
    try {
      await replayStoredEvents(
        sql,
        from,
        (events, ids) => {
          const fresh: MetricEvent[] = [];
          const freshIds: number[] = [];
          for (let i = 0; i < events.length; i++) {
            // The cursor reads each row once: only the checkpoint's ids can repeat.
            if (mark !== null && markHas(mark, ids[i]!)) continue;
            fresh.push(events[i]!);
            freshIds.push(ids[i]!);
          }
          replayedEvents += fresh.length;
          aggregator.record(fresh);
          for (let i = 0; i < fresh.length; i++)
            this.counted.add(freshIds[i]!, fresh[i]!.receivedAt);
          if (detail) this.options.extras.replayed(fresh);
        },
        detail,
      );
    } catch (error) {
      log.error({ err: error }, 'replaying stored events after the checkpoint failed');
    }
    // Everything received before the mark's `from` committed before the replay's read (commits
    // land within MARK_OVERLAP_MS of receipt), and the ids after it are listed.
    this.restored = this.counted.mark();
    return this.restoredFrom(started, checkpointAt, replayedEvents, reason, REBUILD_MINUTES);
  }

  private restoredFrom(
    started: number,
    checkpointAt: number | null,
    replayedEvents: number,
    reason: string | null,
    rebuiltMinutes: number,
  ): RestoredFrom {
    const { log } = this.options;
    const restoreMs = Math.round(performance.now() - started);
    log.info({ checkpointAt, replayedEvents, restoreMs, reason }, 'metrics restored');
    const restored = {
      checkpointAt: checkpointAt === null ? null : new Date(checkpointAt).toISOString(),
      replayedEvents,
      restoredAt: new Date(this.options.now()).toISOString(),
      restoreMs,
    };
    return reason === null ? restored : { ...restored, rebuilt: { reason, rebuiltMinutes } };
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
    const totals = this.totals;
    totals.encodeSeconds += (performance.now() - started) / 1000;
    totals.lastBytes = body.length;
    this.writing = saveCheckpoint(sql, owner, {
      format: CHECKPOINT_FORMAT,
      takenAt: content.takenAt,
      replayFrom: mark.from,
      body,
    })
      .then(
        () => void totals.written++,
        (error: unknown) => {
          totals.failed++;
          throw error;
        },
      )
      .finally(() => {
        this.writing = null;
      });
    return this.writing;
  }

  stats(): CheckpointTotals {
    return { ...this.totals };
  }
}
