import { readdirSync } from 'node:fs';
import t from 'tap';
import { docText } from '../support/doc-tables.ts';

// Issue 16: a README a newcomer reads through, and no documentation line wider than 120 columns.
const files = [
  'README.md',
  'bench/README.md',
  // Text only: docs/ also holds the dashboard's screenshot.
  ...readdirSync(new URL('../../docs/', import.meta.url))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

t.test('the README stays short', async (t) => {
  t.ok(docText('README.md').split('\n').length <= 300, 'at most 300 lines');
});

t.test('no documentation line is wider than 120 characters', async (t) => {
  for (const file of files) {
    const wide = docText(file)
      .split('\n')
      .map((line, i) => ({ line: i + 1, width: [...line].length }))
      .filter(({ width }) => width > 120);
    t.same(wide, [], `${file} fits in 120 columns`);
  }
});
