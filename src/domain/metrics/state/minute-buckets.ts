/**
 * @module Per-minute counts over the rolling 24 h (by `receivedAt`): totals, errors, latency sum /
 * min / max, per severity / type / source, and the minute's busiest second. A window is a sum of them.
 */
import { SEVERITIES } from '../../event.ts';
import { EMPTY_UINT32, fitUint32 } from './dense-counts.ts';
import { RETENTION_MINUTES } from '../metrics-limits.ts';

export class MinuteBucket {
  minute = -1;
  events = 0;
  errors = 0;
  latencySum = 0;
  latencyMin = Infinity;
  latencyMax = -Infinity;
  readonly severities = new Uint32Array(SEVERITIES.length);
  byType = EMPTY_UINT32;
  errorsByType = EMPTY_UINT32;
  bySource = EMPTY_UINT32;
  errorsBySource = EMPTY_UINT32;
  /** The highest 1-second count within this minute, and that second's start (epoch ms). */
  peakSecondCount = 0;
  peakSecondStart = 0;

  /** Hot path: one event. `typeLimit` / `sourceLimit` bound the growth of the id-indexed arrays. */
  add(
    typeId: number,
    sourceId: number,
    severity: number,
    isError: boolean,
    latencyMs: number,
    typeLimit: number,
    sourceLimit: number,
  ): void {
    this.events++;
    this.latencySum += latencyMs;
    if (latencyMs < this.latencyMin) this.latencyMin = latencyMs;
    if (latencyMs > this.latencyMax) this.latencyMax = latencyMs;
    this.severities[severity]!++;
    const byType = (this.byType = fitUint32(this.byType, typeId, typeLimit));
    byType[typeId]!++;
    const bySource = (this.bySource = fitUint32(this.bySource, sourceId, sourceLimit));
    bySource[sourceId]!++;
    if (isError) {
      this.errors++;
      const errorsByType = (this.errorsByType = fitUint32(this.errorsByType, typeId, typeLimit));
      errorsByType[typeId]!++;
      const errorsBySource = (this.errorsBySource = fitUint32(
        this.errorsBySource,
        sourceId,
        sourceLimit,
      ));
      errorsBySource[sourceId]!++;
    }
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
