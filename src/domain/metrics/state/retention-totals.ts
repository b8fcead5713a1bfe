/**
 * @module Running totals over the 24 h: what an event adds now, a minute bucket subtracts when it
 * leaves the retention. The snapshot reads these instead of summing 1440 buckets per key.
 */
import { SEVERITIES } from '../../event.ts';
import { EMPTY_FLOAT64, fitFloat64 } from './dense-counts.ts';
import type { MinuteBucket } from './minute-buckets.ts';

export class RetentionTotals {
  events = 0;
  errors = 0;
  latencySum = 0;
  readonly severities = new Float64Array(SEVERITIES.length);
  byType = EMPTY_FLOAT64;
  errorsByType = EMPTY_FLOAT64;
  bySource = EMPTY_FLOAT64;
  errorsBySource = EMPTY_FLOAT64;

  /** Hot path: one event (same arguments as MinuteBucket.add). */
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
    this.severities[severity]!++;
    const byType = (this.byType = fitFloat64(this.byType, typeId, typeLimit));
    byType[typeId]!++;
    const bySource = (this.bySource = fitFloat64(this.bySource, sourceId, sourceLimit));
    bySource[sourceId]!++;
    if (isError) {
      this.errors++;
      const errorsByType = (this.errorsByType = fitFloat64(this.errorsByType, typeId, typeLimit));
      errorsByType[typeId]!++;
      const errorsBySource = (this.errorsBySource = fitFloat64(
        this.errorsBySource,
        sourceId,
        sourceLimit,
      ));
      errorsBySource[sourceId]!++;
    }
  }

  /**
   * Removes a minute that left the 24 h. Calls `typeGone` / `sourceGone` with each id whose count
   * fell to 0, so its key can be released.
   */
  subtract(
    bucket: MinuteBucket,
    typeGone: (id: number) => void,
    sourceGone: (id: number) => void,
  ): void {
    this.events -= bucket.events;
    this.errors -= bucket.errors;
    this.latencySum -= bucket.latencySum;
    for (let s = 0; s < SEVERITIES.length; s++) this.severities[s]! -= bucket.severities[s]!;
    subtractCounts(this.byType, bucket.byType, typeGone);
    subtractCounts(this.errorsByType, bucket.errorsByType, undefined);
    subtractCounts(this.bySource, bucket.bySource, sourceGone);
    subtractCounts(this.errorsBySource, bucket.errorsBySource, undefined);
    if (this.events === 0) this.latencySum = 0; // no float residue once empty
  }
}

function subtractCounts(
  totals: Float64Array,
  minute: Uint32Array,
  gone: ((id: number) => void) | undefined,
): void {
  for (let id = 0; id < minute.length; id++) {
    const count = minute[id]!;
    if (count === 0) continue;
    const left = (totals[id] = totals[id]! - count);
    if (left === 0 && gone !== undefined) gone(id);
  }
}
