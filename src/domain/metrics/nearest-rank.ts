/**
 * @module Nearest-rank percentiles: the rank ceil(p/100 · n) (at least 1), found by quickselect in
 * place, O(n) on average, so no sample window is sorted.
 */

/** 0-based position of the nearest-rank `percentile` among `n` ordered values (n >= 1). */
export const nearestRankIndex = (percentile: number, n: number): number =>
  Math.max(1, Math.ceil((percentile * n) / 100)) - 1;

/**
 * Reorders `values[left..right]` so that position `k` holds the value it would hold if that range
 * were sorted, everything before it is <= and everything after it >= (Hoare, median of three).
 */
export function selectInPlace(values: Float64Array, left: number, right: number, k: number): void {
  let lo = left;
  let hi = right;
  while (hi > lo) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < values[lo]!) swap(values, mid, lo);
    if (values[hi]! < values[lo]!) swap(values, hi, lo);
    if (values[hi]! < values[mid]!) swap(values, hi, mid);
    const pivot = values[mid]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        swap(values, i, j);
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

function swap(values: Float64Array, a: number, b: number): void {
  const held = values[a]!;
  values[a] = values[b]!;
  values[b] = held;
}
