/**
 * @module A HyperLogLog sketch (2^HLL_PRECISION one-byte registers, 32-bit murmur3 hash of the
 * string) for distinct users: mergeable, fixed size, with the small-range (linear counting) correction.
 */
import { HLL_PRECISION } from '../metrics-limits.ts';

const REGISTERS = 1 << HLL_PRECISION;
const MAX_RANK = 32 - HLL_PRECISION + 1;
const ALPHA = 0.7213 / (1 + 1.079 / REGISTERS);
const TWO_POW_32 = 2 ** 32;
/** 2^-rank for every possible register value. */
const INVERSE_POWERS = Float64Array.from({ length: MAX_RANK + 1 }, (_, rank) => 2 ** -rank);

export class HyperLogLog {
  readonly registers = new Uint8Array(REGISTERS);

  /** Adds one element given by its 32-bit hash (see hashString). */
  addHash(hash: number): void {
    const index = hash >>> (32 - HLL_PRECISION);
    const rest = (hash << HLL_PRECISION) | 0;
    const rank = rest === 0 ? MAX_RANK : Math.clz32(rest) + 1;
    if (rank > this.registers[index]!) this.registers[index] = rank;
  }

  merge(other: HyperLogLog): void {
    const mine = this.registers;
    const theirs = other.registers;
    for (let i = 0; i < REGISTERS; i++) {
      const value = theirs[i]!;
      if (value > mine[i]!) mine[i] = value;
    }
  }

  clear(): void {
    this.registers.fill(0);
  }

  /** The estimated number of distinct elements added (unrounded). */
  estimate(): number {
    let sum = 0;
    let zeros = 0;
    for (let i = 0; i < REGISTERS; i++) {
      const value = this.registers[i]!;
      sum += INVERSE_POWERS[value]!;
      if (value === 0) zeros++;
    }
    const raw = (ALPHA * REGISTERS * REGISTERS) / sum;
    if (raw <= 2.5 * REGISTERS && zeros > 0) return REGISTERS * Math.log(REGISTERS / zeros);
    if (raw > TWO_POW_32 / 30) return -TWO_POW_32 * Math.log(1 - raw / TWO_POW_32);
    return raw;
  }
}

/** murmur3 (32-bit) over the UTF-16 code units of `text`, two units per block. */
export function hashString(text: string): number {
  let hash = 0x9747b28c;
  const length = text.length;
  let i = 0;
  for (; i + 1 < length; i += 2) {
    hash ^= scramble(text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16));
    hash = (hash << 13) | (hash >>> 19);
    hash = (Math.imul(hash, 5) + 0xe6546b64) | 0;
  }
  if (i < length) hash ^= scramble(text.charCodeAt(i));
  hash ^= length;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

function scramble(block: number): number {
  let k = Math.imul(block, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  return Math.imul(k, 0x1b873593);
}
