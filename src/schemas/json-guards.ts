/**
 * @module Checks on parsed JSON that a schema cannot express: strings PostgreSQL cannot store
 * (NUL, unpaired surrogates), numbers too large for a double (JSON.parse makes `1e309` Infinity,
 * which JSON.stringify would store as null) and nesting depth (bounded so no recursive walk can overflow the
 * stack).
 */

/**
 * Strings PostgreSQL cannot store as given: U+0000 (refused in text and jsonb) and unpaired UTF-16
 * surrogates (not Unicode: text would store U+FFFD instead, jsonb refuses the whole statement and
 * with it every event of the group-commit batch).
 */
const NUL = '\0';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Parsed JSON can only hold either as a `\u` escape (JSON.parse refuses a raw NUL, the UTF-8
 * decoder a raw surrogate), so their absence from the raw text proves there is none. A number
 * (a value after `:`, `,` or `[`) only overflows with an exponent of 3 digits or more, or with
 * 309 digits before its point.
 */
export const mayHoldUnstorable = (rawJson: string): boolean =>
  /\\u(?:0000|[dD][89abcdefABCDEF])|[:,[]\s*-?(?:\d+(?:\.\d+)?[eE][+-]?\d{3}|\d{309})/.test(
    rawJson,
  );

const NOT_FINITE = 'must be a finite number (this one is too large for a double)';

export interface Unstorable {
  /** Dotted path of the string (`metadata.note.text`); a bad key names the key's parent. */
  readonly path: string;
  readonly message: string;
}

const problemOf = (text: string): string | null => {
  if (text.includes(NUL)) return 'must not contain the NUL character (U+0000)';
  if (LONE_SURROGATE.test(text))
    return 'must not contain an unpaired surrogate (not valid Unicode)';
  return null;
};

const pathOf = (parts: readonly string[]): string => parts.join('.');

/**
 * Every string or key that PostgreSQL cannot store unaltered, in document order. Iterative, so
 * depth cannot overflow the stack.
 */
export function findUnstorable(value: unknown): Unstorable[] {
  const found: Unstorable[] = [];
  const stack: { value: unknown; path: string[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop() as { value: unknown; path: string[] };
    if (typeof v === 'string') {
      const message = problemOf(v);
      if (message !== null) found.push({ path: pathOf(path), message });
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) found.push({ path: pathOf(path), message: NOT_FINITE });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--)
        stack.push({ value: v[i], path: [...path, String(i)] });
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      const badKey = entries.map(([key]) => problemOf(key)).find((m) => m !== null);
      if (badKey !== undefined) found.push({ path: pathOf(path), message: `keys ${badKey}` });
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i] as [string, unknown];
        stack.push({ value: item, path: [...path, key] });
      }
    }
  }
  return found;
}

/** Nesting depth of a JSON value (a scalar is 0), counted without recursion. */
export function depthOf(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    max = Math.max(max, depth + 1);
    for (const item of Array.isArray(v) ? v : Object.values(v)) stack.push([item, depth + 1]);
  }
  return max;
}
