import { readFileSync } from 'node:fs';
import t from 'tap';
import { ERROR_STATUS } from '../src/errors.ts';

t.test("README's error table lists every code with its status", async (t) => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  for (const [code, status] of Object.entries(ERROR_STATUS)) {
    const row = readme.split('\n').find((line) => line.startsWith(`| \`${code}\` |`));
    t.ok(row, `${code} has a row`);
    t.match(row ?? '', `| ${status} |`, `${code} is documented as ${status}`);
  }
});
