/**
 * Reads the tables of the repository's markdown files (README.md, docs/*.md), so tests can hold
 * what the documentation states to the code.
 */
import { readFileSync } from 'node:fs';

const repoRoot = new URL('../../', import.meta.url);

/** The text of a markdown file, by its path from the repository root (e.g. `docs/api.md`). */
export function docText(file: string): string {
  return readFileSync(new URL(file, repoRoot), 'utf8');
}

/** The cells of every table row of `file`, alignment padding from the formatter trimmed. */
export function docRows(file: string): string[][] {
  return docText(file)
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

/** The cells of the row of `file` whose first cell is `` `key` ``, or undefined. */
export function docRow(file: string, key: string): string[] | undefined {
  return docRows(file).find((cells) => cells[0] === `\`${key}\``);
}
