// `npm start` builds only when the build's inputs changed since the last build: a second start with
// nothing changed runs no build; an edit, a new file, a deleted file or a missing output does.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { buildIfChanged, inputsHash } from '../../src/build-if-changed.ts';

async function project(
  t: Test,
): Promise<{ root: string; build: () => Promise<void>; builds: () => number }> {
  const root = await mkdtemp(path.join(tmpdir(), 'vigil-build-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  await mkdir(path.join(root, 'src', 'http'), { recursive: true });
  await writeFile(path.join(root, 'src', 'main.ts'), 'export {};\n');
  await writeFile(path.join(root, 'src', 'http', 'server.ts'), 'export const a = 1;\n');
  await writeFile(path.join(root, 'package.json'), '{}\n');
  let count = 0;
  const build = async (): Promise<void> => {
    count++;
    await mkdir(path.join(root, 'dist', 'src'), { recursive: true });
    await writeFile(path.join(root, 'dist', 'src', 'main.js'), 'export {};\n');
  };
  return { root, build, builds: () => count };
}

void t.test('a second start with nothing changed runs no build', async (t) => {
  const p = await project(t);
  t.equal(await buildIfChanged(p.root, p.build), 'built', 'the first start builds');
  t.equal(await buildIfChanged(p.root, p.build), 'up to date');
  t.equal(await buildIfChanged(p.root, p.build), 'up to date');
  t.equal(p.builds(), 1);
});

void t.test('an edited, added or deleted input, or a missing output, builds again', async (t) => {
  const p = await project(t);
  await buildIfChanged(p.root, p.build);
  const changes: [string, () => Promise<unknown>][] = [
    [
      'an edit',
      () => writeFile(path.join(p.root, 'src', 'http', 'server.ts'), 'export const a = 2;\n'),
    ],
    ['a new file', () => writeFile(path.join(p.root, 'src', 'http', 'route.ts'), 'export {};\n')],
    ['a deleted file', () => rm(path.join(p.root, 'src', 'http', 'route.ts'))],
    [
      'a new migration folder',
      () =>
        mkdir(path.join(p.root, 'migrations')).then(() =>
          writeFile(path.join(p.root, 'migrations', '1.sql'), 'select 1;\n'),
        ),
    ],
    ['package.json', () => writeFile(path.join(p.root, 'package.json'), '{"a":1}\n')],
    ['the output removed', () => rm(path.join(p.root, 'dist', 'src', 'main.js'))],
  ];
  let expected = 1;
  for (const [label, change] of changes) {
    await change();
    t.equal(await buildIfChanged(p.root, p.build), 'built', label);
    t.equal(p.builds(), ++expected, `${label}: one build`);
    t.equal(await buildIfChanged(p.root, p.build), 'up to date', `${label}: then up to date`);
  }
});

void t.test('a failed build leaves the next start to build again', async (t) => {
  const p = await project(t);
  await t.rejects(
    buildIfChanged(p.root, () => Promise.reject(new Error('tsc failed'))),
    /tsc failed/,
  );
  t.equal(await buildIfChanged(p.root, p.build), 'built');
});

void t.test('the hash covers paths as well as contents', async (t) => {
  const p = await project(t);
  const before = await inputsHash(p.root);
  t.equal(await inputsHash(p.root), before, 'stable');
  await rm(path.join(p.root, 'src', 'http', 'server.ts'));
  await writeFile(path.join(p.root, 'src', 'http', 'moved.ts'), 'export const a = 1;\n');
  t.not(await inputsHash(p.root), before, 'same content, another path');
});
