/**
 * @module Per-minute counts over the rolling 24 h (by `receivedAt`): totals, errors, latency sum /
 * min / max, per severity / type / source, and the minute's busiest second. A window is a sum of them.
 */
import { EventCounts } from './event-counts.ts';
import { RETENTION_MINUTES } from '../metrics-limits.ts';

export class MinuteBucket extends EventCounts<Uint32Array<ArrayBuffer>> {
  minute = -1;
  latencyMin = Infinity;
  latencyMax = -Infinity;
  /** The highest 1-second count within this minute, and that second's start (epoch ms). */
  peakSecondCount = 0;
  peakSecondStart = 0;

  constructor() {
    super((length) => new Uint32Array(length));
  }

  /** Hot path: one event, as EventCounts.add, and the minute's latency range. */
  override add(
    typeId: number,
    sourceId: number,
    severity: number,
    isError: boolean,
    latencyMs: number,
    typeLimit: number,
    sourceLimit: number,
  ): void {
    if (latencyMs < this.latencyMin) this.latencyMin = latencyMs;
    if (latencyMs > this.latencyMax) this.latencyMax = latencyMs;
    super.add(typeId, sourceId, severity, isError, latencyMs, typeLimit, sourceLimit);
  }

  /** Makes the bucket count `minute` from zero; its arrays are kept for reuse. */
  open(minute: number): void {
    this.minute = minute;
    this.events = 0;
    this.errors = 0;
    this.latencySum = 0;
    this.latencyMin = Infinity;
    this.latencyMax = -Infinity;
    this.severities.fill(0);
    this.byType.fill(0);
    this.errorsByType.fill(0);
    this.bySource.fill(0);
    this.errorsBySource.fill(0);
    this.peakSecondCount = 0;
    this.peakSecondStart = 0;
  }
}

/** A ring of RETENTION_MINUTES buckets: minute m lives in slot m mod 1440 while it is in the 24 h. */
export class MinuteBuckets {
  private readonly slots: (MinuteBucket | undefined)[] = [];

  /** The bucket of `minute`, undefined when that minute has no events (or has left the 24 h). */
  get(minute: number): MinuteBucket | undefined {
    const bucket = this.slots[minute % RETENTION_MINUTES];
    return bucket !== undefined && bucket.minute === minute ? bucket : undefined;
  }

  /** The bucket of `minute`, opened when needed. The caller keeps `minute` inside the 24 h. */
  open(minute: number): MinuteBucket {
    const slot = minute % RETENTION_MINUTES;
    let bucket = this.slots[slot];
    if (bucket === undefined) {
      bucket = new MinuteBucket();
      this.slots[slot] = bucket;
    }
    if (bucket.minute !== minute) bucket.open(minute);
    return bucket;
  }

  /** Marks the bucket of `minute` empty (its counts were subtracted from the running totals). */
  close(minute: number): void {
    const bucket = this.get(minute);
    if (bucket !== undefined) bucket.minute = -1;
  }
}
