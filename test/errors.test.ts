import t from 'tap';
import { ERROR_STATUS } from '../src/errors.ts';
import { docRow, docRows } from './support/doc-tables.ts';

t.test("docs/api.md's error table lists every code with its status", async (t) => {
  for (const [code, status] of Object.entries(ERROR_STATUS)) {
    const row = docRow('docs/api.md', code);
    t.ok(row, `${code} has a row`);
    t.equal(row?.[1], String(status), `${code} is documented as ${status}`);
  }
});

t.test("docs/api.md's error table lists no code the service does not have", async (t) => {
  const documented = docRows('docs/api.md')
    .filter((cells) => /^`[A-Z_]+`$/.test(cells[0] ?? '') && /^\d{3}$/.test(cells[1] ?? ''))
    .map((cells) => (cells[0] ?? '').slice(1, -1));
  t.ok(documented.length > 0, 'the error table is found');
  t.same(documented.sort(), Object.keys(ERROR_STATUS).sort());
});
