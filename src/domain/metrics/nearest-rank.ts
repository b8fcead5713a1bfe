/**
 * @module Nearest-rank percentiles: the value at rank ceil(p/100 · n) (at least 1) of n ordered
 * values.
 */

/** 0-based position of the nearest-rank `percentile` among `n` ordered values (n >= 1). */
export const nearestRankIndex = (percentile: number, n: number): number =>
  Math.max(1, Math.ceil((percentile * n) / 100)) - 1;
