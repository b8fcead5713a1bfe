/**
 * @module A fixed-size time series for the charts: one Float64Array per column, allocated once.
 * When full, the oldest point is dropped; memory never grows however long the page stays open.
 */
export class Ring {
  private readonly columns: Float64Array[];
  private length = 0;

  /** `columns`: time (seconds) plus one per series. */
  constructor(
    readonly capacity: number,
    columns: number,
  ) {
    this.columns = Array.from({ length: columns }, () => new Float64Array(capacity));
  }

  /** Appends a point (time first); a point not after the last one replaces nothing, it is dropped. */
  push(values: readonly number[]): void {
    const time = this.columns[0] as Float64Array;
    if (this.length > 0 && (values[0] ?? 0) <= (time[this.length - 1] ?? 0)) return;
    if (this.length === this.capacity) {
      for (const column of this.columns) column.copyWithin(0, 1);
      this.length--;
    }
    this.columns.forEach((column, i) => (column[this.length] = values[i] ?? 0));
    this.length++;
  }

  get size(): number {
    return this.length;
  }

  /** Views of the filled part, in uPlot's column order (no copy). */
  view(indexes: readonly number[]): Float64Array[] {
    return indexes.map((i) => (this.columns[i] as Float64Array).subarray(0, this.length));
  }
}
