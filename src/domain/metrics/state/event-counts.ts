/**
 * @module What one event adds to a set of counts: events, errors, latency sum, and per severity,
 * type and source. A minute bucket holds them as Uint32Array (a minute cannot overflow it), the
 * 24 h running totals as Float64Array (24 h can). Per-key counts are dense arrays indexed by a key id
 * (KeyRegistry), grown by doubling up to the registry's id limit, so the hot path is array writes.
 */
import { SEVERITIES } from '../../event.ts';

type Counts = Uint32Array<ArrayBuffer> | Float64Array<ArrayBuffer>;

const grownLength = (current: number, index: number, limit: number): number =>
  Math.min(Math.max(index + 1, current * 2, 16), Math.max(limit, index + 1));

/** `counts` itself when `index` fits, else a longer copy of the same kind (keep the returned one). */
function fit<A extends Counts>(counts: A, index: number, limit: number): A {
  if (index < counts.length) return counts;
  const grown = new (counts.constructor as new (length: number) => A)(
    grownLength(counts.length, index, limit),
  );
  grown.set(counts);
  return grown;
}

export abstract class EventCounts<A extends Counts> {
  events = 0;
  errors = 0;
  latencySum = 0;
  readonly severities: A;
  byType: A;
  errorsByType: A;
  bySource: A;
  errorsBySource: A;

  /** `empty(n)` makes an array of the subclass's kind; the per-key ones start empty and grow. */
  protected constructor(empty: (length: number) => A) {
    this.severities = empty(SEVERITIES.length);
    this.byType = empty(0);
    this.errorsByType = empty(0);
    this.bySource = empty(0);
    this.errorsBySource = empty(0);
  }

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
    this.severities[severity]!++;
    const byType = (this.byType = fit(this.byType, typeId, typeLimit));
    byType[typeId]!++;
    const bySource = (this.bySource = fit(this.bySource, sourceId, sourceLimit));
    bySource[sourceId]!++;
    if (isError) {
      this.errors++;
      const errorsByType = (this.errorsByType = fit(this.errorsByType, typeId, typeLimit));
      errorsByType[typeId]!++;
      const errorsBySource = (this.errorsBySource = fit(
        this.errorsBySource,
        sourceId,
        sourceLimit,
      ));
      errorsBySource[sourceId]!++;
    }
  }
}
