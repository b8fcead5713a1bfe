/**
 * Markdown tables for bench results: columns padded so the table also reads well in a terminal;
 * numeric columns right-aligned.
 */

export type Cell = string | number;

export interface Column {
  readonly title: string;
  readonly align?: 'left' | 'right';
}

/** Formats numbers for the table: integers with thousands separators, others with `digits`. */
export const num = (value: number, digits = 0): string =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', {
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      })
    : '–';

export function markdownTable(
  columns: readonly Column[],
  rows: readonly (readonly Cell[])[],
): string {
  const text = rows.map((row) => columns.map((_, i) => String(row[i] ?? '')));
  const widths = columns.map((column, i) =>
    Math.max(3, column.title.length, ...text.map((row) => (row[i] as string).length)),
  );
  const pad = (value: string, i: number): string => {
    const width = widths[i] as number;
    return columns[i]?.align === 'right' ? value.padStart(width) : value.padEnd(width);
  };
  const line = (cells: readonly string[]): string => `| ${cells.map(pad).join(' | ')} |`;
  const rule = columns.map((column, i) => {
    const dashes = '-'.repeat(widths[i] as number);
    return column.align === 'right' ? `${dashes.slice(1)}:` : dashes;
  });
  return [line(columns.map((c) => c.title)), `| ${rule.join(' | ')} |`, ...text.map(line)].join(
    '\n',
  );
}

export function printTable(columns: readonly Column[], rows: readonly (readonly Cell[])[]): void {
  process.stdout.write(`${markdownTable(columns, rows)}\n`);
}
