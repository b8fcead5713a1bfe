import t from 'tap';
import { folderCycles, folderEdges, folderOf, root, sourceFiles } from './folder-graph.ts';

// Issue 31: no two folders import each other, even through different files (which dpdm, looking
// at file cycles only, cannot see). npm run lint:cycles runs the same check.
t.test('no cycle between the folders of src/ and workers/', async (t) => {
  const edges = folderEdges();
  t.ok(edges.length > 50, 'the graph was read');
  t.same(folderCycles(edges), []);
});

t.test('a cycle through different files is found and named', async (t) => {
  const cycles = folderCycles([
    { from: 'src/auth', to: 'src/stomp' },
    { from: 'src/stomp', to: 'src/http' },
    { from: 'src/http', to: 'src/auth' },
    { from: 'src/http', to: 'src/domain' },
  ]);
  t.same(cycles, [
    {
      path: ['src/auth', 'src/stomp', 'src/http', 'src/auth'],
      members: ['src/auth', 'src/http', 'src/stomp'],
    },
  ]);
});

t.test('what counts as a folder', async (t) => {
  const of = (file: string) => folderOf(`${root}/${file}`);
  t.equal(of('src/http/handlers/rules.ts'), 'src/http');
  t.equal(of('src/domain/rules/kinds/threshold/evaluate.ts'), 'src/domain/rules');
  t.equal(of('src/domain/event.ts'), 'src/domain');
  t.equal(of('src/service.ts'), 'src/service.ts');
  t.equal(of('workers/storage/ingest.ts'), 'workers');
  t.equal(of('test/support/service.ts'), undefined);
});

t.test('every folder of src/ and workers/ has its layer in eslint.config.js', async (t) => {
  const config = new URL('../../eslint.config.js', import.meta.url).href;
  const { LAYERS } = (await import(config)) as { LAYERS: string[][] };
  const units = new Set(LAYERS.flat().map((unit) => unit.replace(/\/\*\.ts$/, '')));
  const folders = new Set(['src', 'workers'].flatMap(sourceFiles).map((file) => folderOf(file)));
  t.ok(folders.has('src/http') && folders.has('workers'), 'the folders were read');
  t.same(
    [...folders].filter((folder) => folder !== undefined && !units.has(folder)),
    [],
    'no folder without a layer',
  );
});
