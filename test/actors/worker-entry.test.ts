// Worker entries in both ways the service runs: from source through tsx (these tests, the benches)
// the threads start from workers/*.worker.ts with the tsx preload; compiled by tsc (npm start, the
// image) from dist/workers/*.worker.js with no preload, and the compiled service really starts,
// migrates, stores an event, counts it in its metrics actor and stops on SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { workerEntry, workerExecArgv } from '../../src/actors/worker-entry.ts';
import { waitUntil } from '../service/alerts-helpers.ts';
import { createTestDatabase, withMigrationGate } from '../support/database.ts';
import { keyHeaders, TEST_AUTH_ENV } from '../support/keys.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Runs a command to its end; rejects with its output if it fails. */
function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} exited ${code}: ${output}`)),
    );
  });
}

/** The port the child logs once it listens; rejects if it exits first. */
function listeningPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      if (!line.includes('"vigil listening"')) return;
      const entry = JSON.parse(line) as { port?: number };
      if (entry.port !== undefined) resolve(entry.port);
    });
    child.on('exit', (code) => reject(new Error(`the compiled service exited ${code}`)));
  });
}

void t.test('from source: .ts entries, started with the tsx preload', (t) => {
  for (const name of ['storage', 'metrics-actor'] as const) {
    const entry = workerEntry(name);
    t.ok(entry.pathname.endsWith(`/workers/${name}.worker.ts`), entry.pathname);
    t.ok(existsSync(entry), `${name} entry exists`);
  }
  const preload = workerExecArgv().at(-1) ?? '';
  t.ok(preload.endsWith('/workers/register-tsx.mjs') && existsSync(new URL(preload)));
  t.end();
});

void t.test('compiled: .js entries without tsx, and the service runs from them', async (t) => {
  await mkdir(join(ROOT, '.scratch'), { recursive: true });
  const out = await mkdtemp(join(ROOT, '.scratch', 'compiled-'));
  t.teardown(() => rm(out, { recursive: true, force: true }));
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const buildInfo = join(out, '.tsbuildinfo');
  await run(process.execPath, [
    tsc,
    '-p',
    'tsconfig.build.json',
    '--outDir',
    out,
    '--tsBuildInfoFile',
    buildInfo,
  ]);

  const compiled = (await import(join(out, 'src/actors/worker-entry.js'))) as {
    workerEntry: typeof workerEntry;
    workerExecArgv: typeof workerExecArgv;
  };
  for (const name of ['storage', 'metrics-actor'] as const) {
    const entry = compiled.workerEntry(name);
    t.equal(fileURLToPath(entry), join(out, `workers/${name}.worker.js`));
    t.ok(existsSync(entry), `${name} entry compiled`);
  }
  t.same(compiled.workerExecArgv(), process.execArgv, 'only the parent flags: no tsx preload');

  const db = await createTestDatabase(t);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    DATABASE_URL: db.url,
    DATABASE_SCHEMA: db.schema,
    PORT: '0',
    HOST: '127.0.0.1',
    STORAGE_WORKERS: '1',
    LOG_LEVEL: 'info',
    ...TEST_AUTH_ENV,
  };
  const child = spawn(process.execPath, [join(out, 'src/main.js')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const port = await withMigrationGate(db.url, () => listeningPort(child));
  const base = `http://127.0.0.1:${port}`;

  const posted = await fetch(`${base}/api/v1/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...keyHeaders() },
    body: JSON.stringify({ eventType: 'compiled_start', source: 'test', severity: 'INFO' }),
  });
  t.equal(posted.status, 202, 'stored by a compiled storage worker');
  const counted = await waitUntil(
    async () =>
      (
        (await (await fetch(`${base}/api/v1/metrics`, { headers: keyHeaders() })).json()) as {
          eventsByType: object;
        }
      ).eventsByType,
    (byType) => 'compiled_start' in byType,
    'the compiled metrics actor to count the event',
  );
  t.same(counted, { compiled_start: 1 });

  child.kill('SIGTERM');
  t.equal(await exited, 0, 'SIGTERM drains and exits 0');
});
