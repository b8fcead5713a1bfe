/**
 * @module `npm start`'s build step: runs `npm run build` only when the sources changed since the
 * last build, so a restart is listening in seconds instead of recompiling every time (36-51 s).
 * "Changed" is a SHA-256 over the build's inputs (paths and contents), kept in dist/ beside the
 * output: edits, added and deleted files, a branch switch or a new lockfile all count, however
 * the clocks and mtimes go.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What `npm run build` reads (tsconfig.build.json, the dashboard's tsconfig and its CSS). */
export const BUILD_INPUTS = [
  'src',
  'workers',
  'migrations',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
];
/** The hash of the inputs the last successful build saw. */
export const STAMP = path.join('dist', '.build-inputs');
/** The build's entry point: without it there is nothing to start, whatever the stamp says. */
const OUTPUT = path.join('dist', 'src', 'main.js');

async function files(root: string, relative: string): Promise<string[]> {
  const full = path.join(root, relative);
  if (!existsSync(full)) return [];
  const entries = await readdir(full, { withFileTypes: true }).catch(() => null);
  if (entries === null) return [relative]; // a file
  const nested = await Promise.all(
    entries.map((entry) => files(root, path.join(relative, entry.name))),
  );
  return nested.flat();
}

/** SHA-256 over the sorted paths of the inputs under `root` and their contents. */
export async function inputsHash(
  root: string,
  inputs: readonly string[] = BUILD_INPUTS,
): Promise<string> {
  const paths = (await Promise.all(inputs.map((input) => files(root, input)))).flat().sort();
  const hash = createHash('sha256');
  for (const relative of paths) {
    const content = await readFile(path.join(root, relative));
    // Lengths first: no two different file sets can hash the same bytes.
    hash.update(`${relative.length}:${relative}:${content.length}:`).update(content);
  }
  return hash.digest('hex');
}

/** Builds when the inputs changed since the last build (or nothing is built); says which it did. */
export async function buildIfChanged(
  root: string,
  build: () => Promise<void>,
): Promise<'built' | 'up to date'> {
  const hash = await inputsHash(root);
  const stamp = path.join(root, STAMP);
  const last = existsSync(stamp) ? (await readFile(stamp, 'utf8')).trim() : null;
  if (last === hash && existsSync(path.join(root, OUTPUT))) return 'up to date';
  await build();
  // The hash taken before the build: a source edited meanwhile makes the next start build again.
  await mkdir(path.dirname(stamp), { recursive: true });
  await writeFile(stamp, `${hash}\n`);
  return 'built';
}

function npmRunBuild(root: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`npm run build exited with code ${code}`)),
    );
  });
}

if (
  process.argv[1] !== undefined &&
  fileURLToPath(import.meta.url) === path.resolve(process.argv[1])
) {
  const root = fileURLToPath(new URL('../', import.meta.url));
  const started = performance.now();
  try {
    const outcome = await buildIfChanged(root, () => npmRunBuild(root));
    const ms = Math.round(performance.now() - started);
    console.error(
      outcome === 'built' ? `built in ${ms} ms` : `build up to date (checked in ${ms} ms)`,
    );
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
