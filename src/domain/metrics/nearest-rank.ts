/**
 * @module Nearest-rank percentiles: the rank ceil(p/100 · n) (at least 1), found by selection in
 * place (Floyd-Rivest, O(n) on average), so no sample window is ever sorted.
 */

/** 0-based position of the nearest-rank `percentile` among `n` ordered values (n >= 1). */
export const nearestRankIndex = (percentile: number, n: number): number =>
  Math.max(1, Math.ceil((percentile * n) / 100)) - 1;

/** Ranges longer than this first narrow the bounds by selecting within a sample. */
const SAMPLE_ABOVE = 600;

/**
 * Reorders `values[left..right]` so that position `k` holds the value it would hold if that range
 * were sorted, everything before it is <= and everything after it >=. Floyd & Rivest's SELECT
 * (CACM 1975, algorithm 489), as in mourner/quickselect.
 */
export function selectInPlace(values: Float64Array, left: number, right: number, k: number): void {
  let lo = left;
  let hi = right;
  while (hi > lo) {
    if (hi - lo > SAMPLE_ABOVE) {
      const n = hi - lo + 1;
      const m = k - lo + 1;
      const z = Math.log(n);
      const s = 0.5 * Math.exp((2 * z) / 3);
      const sd = 0.5 * Math.sqrt((z * s * (n - s)) / n) * (m - n / 2 < 0 ? -1 : 1);
      const sampleLo = Math.max(lo, Math.floor(k - (m * s) / n + sd));
      const sampleHi = Math.min(hi, Math.floor(k + ((n - m) * s) / n + sd));
      selectInPlace(values, sampleLo, sampleHi, k);
    }
    const pivot = values[k]!;
    let i = lo;
    let j = hi;
    swap(values, lo, k);
    if (values[hi]! > pivot) swap(values, lo, hi);
    while (i < j) {
      swap(values, i, j);
      i++;
      j--;
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
    }
    if (values[lo] === pivot) swap(values, lo, j);
    else {
      j++;
      swap(values, j, hi);
    }
    if (j <= k) lo = j + 1;
    if (k <= j) hi = j - 1;
  }
}

function swap(values: Float64Array, a: number, b: number): void {
  const held = values[a]!;
  values[a] = values[b]!;
  values[b] = held;
}
