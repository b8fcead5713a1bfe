/**
 * @module The ids of the last `capacity` events seen, to drop one delivered twice (a retried
 * batch, a replay): a Set for the lookup and a ring for the order of forgetting. Bounded memory.
 */
export class RecentIds {
  private readonly seen = new Set<number>();
  private readonly ring: Float64Array;
  private next = 0;

  constructor(private readonly capacity: number) {
    this.ring = new Float64Array(capacity).fill(Number.NaN);
  }

  /** True the first time `id` is seen (within the last `capacity` ids); false for a repeat. */
  add(id: number): boolean {
    if (this.seen.has(id)) return false;
    const old = this.ring[this.next] as number;
    if (!Number.isNaN(old)) this.seen.delete(old);
    this.ring[this.next] = id;
    this.next = (this.next + 1) % this.capacity;
    this.seen.add(id);
    return true;
  }
}
