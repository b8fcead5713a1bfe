/**
 * @module Values over windows that end before the current minute (RATE_CHANGE's windows before),
 * kept across ticks: their minutes are complete, so such a value changes only when the minute turns
 * (the windows move; the cache empties) or when a late event lands in one of them, which changes the
 * window's event count, part of the key. For the values costly to merge: percentiles, distinct users
 * and keys.
 */
export class PastWindows {
  private minute = -1;
  private readonly values = new Map<string, number>();

  /** The key of `metric` over offsets start..end-1 holding `events` events. */
  static key(metric: string, start: number, end: number, events: number): string {
    return `${metric}|${start}|${end}|${events}`;
  }

  /** The value kept under `key` at `currentMinute`, if any. */
  find(currentMinute: number, key: string): number | undefined {
    if (currentMinute !== this.minute) {
      this.values.clear();
      this.minute = currentMinute;
    }
    return this.values.get(key);
  }

  /** Keeps a value computed at the current minute of the last find(). */
  keep(key: string, value: number): void {
    this.values.set(key, value);
  }
}
