/**
 * @module This instance's batches not yet in JetStream (the cluster thread's; pure, the clock is
 * passed in), for vigil_nats_publish_*: a batch of the current incarnation counts from the moment
 * the cluster thread hears it committed (or writes it empty, failed) until JetStream has it,
 * whoever published it: this thread, its relay, or a peer's relay (seen when the batch comes back
 * on the stream). Two typed arrays over a window of batch numbers hold it, no object per batch:
 * a repeated acknowledgement is recognised, and past MAX_WINDOW numbers behind, the oldest are
 * given up (no longer counted), as are batches older than the outbox keeps.
 */

/** Numbers tracked above the settled prefix at most: over an hour of batches at 200 a second. */
export const MAX_WINDOW = 2 ** 20;
const INITIAL_WINDOW = 1_024;

export class PublishBacklog {
  /** Every number up to it is settled: committed and acknowledged, or given up. */
  private base = 0;
  /** The highest number heard of (committed or acknowledged). */
  private high = 0;
  /** Per number above `base` (at number % length): when heard committed, 0 before. */
  private committedAt = new Float64Array(INITIAL_WINDOW);
  /** Per number above `base`: 1 once acknowledged. */
  private acked = new Uint8Array(INITIAL_WINDOW);
  private pendingCount = 0;
  /** Batches given up while pending, in total. */
  givenUp = 0;

  /** Batches committed and not acknowledged yet. */
  get pending(): number {
    return this.pendingCount;
  }

  committed(number: number, now: number): void {
    if (!this.track(number)) return;
    const slot = number % this.acked.length;
    if (this.committedAt[slot] !== 0) return;
    this.committedAt[slot] = now;
    if (this.acked[slot] === 0) this.pendingCount++;
    else this.advance();
  }

  acknowledged(number: number): void {
    if (!this.track(number)) return;
    const slot = number % this.acked.length;
    if (this.acked[slot] === 1) return;
    this.acked[slot] = 1;
    if (this.committedAt[slot] === 0) return; // its commit notice is still on its way
    this.pendingCount--;
    this.advance();
  }

  /** Milliseconds since the oldest pending batch was heard committed; 0 when none is pending. */
  oldestAgeMs(now: number): number {
    let oldest = now;
    let seen = 0;
    for (let n = this.base + 1; n <= this.high && seen < this.pendingCount; n++) {
      const slot = n % this.acked.length;
      const at = this.committedAt[slot] ?? 0;
      if (at === 0 || this.acked[slot] === 1) continue;
      seen++;
      if (at < oldest) oldest = at;
    }
    return now - oldest;
  }

  /** Pending batches committed before `cutoff` are given up: the outbox dropped their rows. */
  forgetCommittedBefore(cutoff: number): void {
    while (this.base < this.high) {
      const at = this.committedAt[(this.base + 1) % this.acked.length] ?? 0;
      if (at === 0 || at >= cutoff) return;
      this.dropOldest();
    }
  }

  /** Makes room for `number`; false when it is settled already. */
  private track(number: number): boolean {
    if (number <= this.base) return false;
    while (number - this.base > this.acked.length) {
      if (this.acked.length < MAX_WINDOW) {
        this.grow();
      } else if (this.base >= this.high) {
        this.base = number - MAX_WINDOW;
      } else {
        this.dropOldest();
      }
    }
    if (number > this.high) this.high = number;
    return true;
  }

  private grow(): void {
    const committedAt = new Float64Array(this.acked.length * 2);
    const acked = new Uint8Array(this.acked.length * 2);
    for (let n = this.base + 1; n <= this.high; n++) {
      const from = n % this.acked.length;
      const to = n % acked.length;
      committedAt[to] = this.committedAt[from] ?? 0;
      acked[to] = this.acked[from] ?? 0;
    }
    this.committedAt = committedAt;
    this.acked = acked;
  }

  /** Settles the lowest tracked number, giving it up if it was pending. */
  private dropOldest(): void {
    const slot = (this.base + 1) % this.acked.length;
    if (this.committedAt[slot] !== 0 && this.acked[slot] === 0) {
      this.pendingCount--;
      this.givenUp++;
    }
    this.committedAt[slot] = 0;
    this.acked[slot] = 0;
    this.base++;
  }

  /** Moves `base` over the numbers committed and acknowledged. */
  private advance(): void {
    while (this.base < this.high) {
      const slot = (this.base + 1) % this.acked.length;
      if (this.committedAt[slot] === 0 || this.acked[slot] === 0) return;
      this.committedAt[slot] = 0;
      this.acked[slot] = 0;
      this.base++;
    }
  }
}
