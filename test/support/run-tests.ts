/**
 * `npm test`: runs tap against DATABASE_URL when set, else against an embedded PostgreSQL started
 * for this run in a fresh temporary directory (removed afterwards). Extra arguments go to tap.
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.ts';
import { createLogger, redactUrlPasswords } from '../../src/log.ts';
import { freePort } from './free-port.ts';

const log = createLogger('warn', 'test-runner');
let stopDatabase = async (): Promise<void> => {};
const env = { ...process.env };
if (env.DATABASE_URL === undefined || env.DATABASE_URL === '') {
  const dir = await mkdtemp(path.join(tmpdir(), 'vigil-test-'));
  await chmod(dir, 0o755);
  const db = await startEmbeddedPostgres(dir, await freePort(), log);
  env.DATABASE_URL = db.url;
  console.log(`# embedded PostgreSQL for this run at ${redactUrlPasswords(db.url)}`);
  stopDatabase = async () => {
    await db.stop();
    await rm(dir, { recursive: true, force: true });
  };
} else {
  console.log(`# tests use DATABASE_URL ${redactUrlPasswords(env.DATABASE_URL)}`);
}

/** tap expands folders only to .js files once its ts-node plugin is off: expand them here. */
const expand = (arg: string): string[] =>
  !arg.startsWith('-') && statSync(arg, { throwIfNoEntry: false })?.isDirectory() === true
    ? readdirSync(arg, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => path.join(arg, f))
        .sort()
    : [arg];

const tapArgs = process.argv.slice(2).flatMap(expand);
const tap = spawn(path.resolve('node_modules/.bin/tap'), tapArgs, { stdio: 'inherit', env });
// Ctrl-C: tap gets it too (same group) and ends; we live on to stop the embedded PostgreSQL, which
// runs in a process group of its own (src/db/postgres-process.ts) and would otherwise outlive us.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (tap.exitCode === null) tap.kill(signal);
  });
}
const code = await new Promise<number>((resolve) => {
  tap.on('exit', (status, signal) => resolve(status ?? (signal === null ? 1 : 1)));
});
await stopDatabase();
process.exit(code);
