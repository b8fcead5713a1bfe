/**
 * @module Which batch numbers of one incarnation of one instance have arrived: every number up to
 * `prefix`, and the later ones that came early. A repeat (the relay republished a batch, the
 * stream delivered it again) is recognised and not counted twice. Memory is bounded: past
 * MAX_EARLY early numbers, the oldest hole is given up (a batch that will never come).
 */

/** Numbers held above the prefix before the oldest hole is given up. */
export const MAX_EARLY = 20_000;

export class ReceivedBatches {
  /** Every number 1..prefix has arrived. */
  private prefixValue = 0;
  /** Numbers above prefix + 1 that arrived before a number below them. */
  private readonly early = new Set<number>();
  private highest = 0;
  /** Numbers given up, in total (each was a hole past MAX_EARLY). */
  givenUp = 0;

  get prefix(): number {
    return this.prefixValue;
  }

  /** The highest number that arrived. */
  get high(): number {
    return this.highest;
  }

  /** True when `number` is new (count its events); false for a repeat. */
  accept(number: number): boolean {
    if (number <= this.prefixValue || this.early.has(number)) return false;
    if (number > this.highest) this.highest = number;
    if (number !== this.prefixValue + 1) {
      this.early.add(number);
      if (this.early.size > MAX_EARLY) this.giveUpOldestHole();
      return true;
    }
    this.prefixValue = number;
    this.advance();
    return true;
  }

  private advance(): void {
    while (this.early.delete(this.prefixValue + 1)) this.prefixValue++;
  }

  private giveUpOldestHole(): void {
    let lowest = Infinity;
    for (const n of this.early) if (n < lowest) lowest = n;
    this.givenUp += lowest - this.prefixValue - 1;
    this.prefixValue = lowest - 1;
    this.advance();
  }
}
