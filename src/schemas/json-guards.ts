/**
 * @module Checks on parsed JSON that a schema cannot express: NUL characters (PostgreSQL stores
 * none in text or jsonb) and nesting depth (bounded so no recursive walk can overflow the stack).
 */

/** JSON can only carry NUL as the escape \u0000, so its absence from the raw text proves none. */
export const mayContainNul = (rawJson: string): boolean => rawJson.includes('\\u0000');

const pathOf = (parts: readonly string[]): string => parts.join('.');

/**
 * The path of the first string or key holding U+0000 (`metadata.note.text`; a NUL in a key names
 * the key's parent), or null. Iterative, so depth cannot overflow the stack.
 */
export function findNul(value: unknown): string | null {
  const stack: { value: unknown; path: string[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop() as { value: unknown; path: string[] };
    if (typeof v === 'string') {
      if (v.includes('\0')) return pathOf(path);
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push({ value: item, path: [...path, String(i)] }));
    } else if (v !== null && typeof v === 'object') {
      for (const [key, item] of Object.entries(v)) {
        if (key.includes('\0')) return pathOf(path);
        stack.push({ value: item, path: [...path, key] });
      }
    }
  }
  return null;
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
