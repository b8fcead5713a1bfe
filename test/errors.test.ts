import t from 'tap';
import { ERROR_STATUS } from '../src/errors.ts';
import { readmeRow } from './support/readme.ts';

t.test("README's error table lists every code with its status", async (t) => {
  for (const [code, status] of Object.entries(ERROR_STATUS)) {
    const row = readmeRow(code);
    t.ok(row, `${code} has a row`);
    t.equal(row?.[1], String(status), `${code} is documented as ${status}`);
  }
});
