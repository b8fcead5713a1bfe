/**
 * @module A histogram of plain numbers, kept by the thread that observes (the front's group commit,
 * the metrics actor's evaluation tick): fixed upper bounds, a count per bucket, a sum. Observing
 * allocates nothing and takes no lock; a scrape reads it, or has it posted, as plain data, and
 * the exposition (prometheus/) turns that into a Prometheus histogram.
 */

/** A histogram as it crosses threads and reaches the exposition: plain arrays and numbers. */
export interface HistogramCounts {
  /** Upper bounds, ascending; the `+Inf` bucket is implied (it is `count`). */
  readonly bounds: readonly number[];
  /** Observations <= each bound (Prometheus' cumulative `le` buckets), one per bound. */
  readonly cumulative: readonly number[];
  readonly sum: number;
  readonly count: number;
}

export class PlainHistogram {
  /** Observations per bucket, not cumulative; the last slot is the bucket above every bound. */
  private readonly counts: Float64Array;
  private sum = 0;
  private count = 0;

  constructor(readonly bounds: readonly number[]) {
    for (let i = 1; i < bounds.length; i++) {
      if (!((bounds[i] as number) > (bounds[i - 1] as number)))
        throw new TypeError(`histogram bounds must ascend: ${bounds.join(', ')}`);
    }
    this.counts = new Float64Array(bounds.length + 1);
  }

  /** One observation: a scan of the (dozen or so) bounds and three additions. */
  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }

  /** The histogram now, as plain data (allocated here, on a scrape, not when observing). */
  read(): HistogramCounts {
    const cumulative: number[] = [];
    let running = 0;
    for (let i = 0; i < this.bounds.length; i++) {
      running += this.counts[i] as number;
      cumulative.push(running);
    }
    return { bounds: this.bounds, cumulative, sum: this.sum, count: this.count };
  }
}
