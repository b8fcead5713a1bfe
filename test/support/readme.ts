/**
 * Reads README.md tables: the cells of the row whose first cell is `` `key` `` (alignment padding
 * from the formatter ignored), or undefined.
 */
import { readFileSync } from 'node:fs';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

export function readmeRow(key: string): string[] | undefined {
  for (const line of readme.split('\n')) {
    if (!line.startsWith('|')) continue;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    if (cells[0] === `\`${key}\``) return cells;
  }
  return undefined;
}
