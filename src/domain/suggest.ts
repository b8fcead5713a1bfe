/**
 * @module "Did you mean …?" for rule validation messages: the closest known word by a small edit
 * distance (optimal string alignment), after case and separator folding and prefix matching.
 */

/** Upper-case letters and digits only: `greater-than`, `Greater Than` and `GREATER_THAN` fold alike. */
const fold = (word: string): string => word.toUpperCase().replace(/[^A-Z0-9]/g, '');

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions), early exit past `limit`. */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prevPrev: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, (prevPrev[j - 2] ?? 0) + 1);
      }
      row.push(d);
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin > limit) return limit + 1;
    prevPrev = prev;
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/**
 * The candidate the user most likely meant, or null when none is close:
 * 1. equal after folding (`errorrate` → `errorRate`);
 * 2. a candidate that starts with the input, input at least 3 folded characters (`GREATER` →
 *    `GREATER_THAN`, the shortest such; ties go to the earlier candidate);
 * 3. the smallest edit distance, at most a third of the input's length (at least 1).
 */
export function suggest(input: string, candidates: readonly string[]): string | null {
  const folded = fold(input);
  if (folded.length === 0) return null;
  const exact = candidates.find((c) => fold(c) === folded);
  if (exact !== undefined) return exact;
  if (folded.length >= 3) {
    let best: string | null = null;
    for (const c of candidates) {
      if (fold(c).startsWith(folded) && (best === null || c.length < best.length)) best = c;
    }
    if (best !== null) return best;
  }
  const limit = Math.max(1, Math.floor(folded.length / 3));
  let best: string | null = null;
  let bestDistance = limit + 1;
  for (const c of candidates) {
    const d = editDistance(folded, fold(c), limit);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}
