import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { docRows } from '../support/doc-tables.ts';

// Issue 31: docs/code-map.md names every folder of src/ once, and nothing that does not exist.
// Required: each folder directly in src/ and each part of src/domain (a layer of its own); a deeper
// folder may be listed too (src/dashboard/web), if it exists. test/architecture holds the layers.
const src = new URL('../../src/', import.meta.url);
const folders = readdirSync(src, { recursive: true, encoding: 'utf8' })
  .filter((entry) => statSync(new URL(entry, src)).isDirectory())
  .map((entry) => `src/${entry.split(path.sep).join('/')}`);

t.test('the code map lists every folder of src/ once, and only folders that exist', async (t) => {
  const listed = docRows('docs/code-map.md')
    .map((cells) => /^`(src\/[a-z/-]+)`$/.exec(cells[1] ?? '')?.[1])
    .filter((folder): folder is string => folder !== undefined);
  t.same(
    listed.filter((folder, i) => listed.indexOf(folder) !== i),
    [],
    'no folder listed twice',
  );
  const existing = new Set(folders);
  t.same(
    listed.filter((folder) => !existing.has(folder)),
    [],
    'every folder listed exists',
  );
  const required = folders.filter((folder) => /^src\/[^/]+$|^src\/domain\/[^/]+$/.test(folder));
  t.ok(required.includes('src/http') && required.includes('src/domain/rules'), 'src/ was read');
  t.same(
    required.filter((folder) => !listed.includes(folder)),
    [],
    'every folder of src/ and of src/domain is listed',
  );
});
