// The embedded PostgreSQL's password: random, kept in VIGIL_DATA_DIR/pg-password (0600), reused
// by the next start, asked for over TCP; a cluster made with the old fixed password is moved to a
// random one; and neither the log nor an error ever shows it.
import { watch } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import t from 'tap';
import { LEGACY_PASSWORD, passwordFile, scramVerifier } from '../../src/db/embedded-password.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded-postgres.ts';
import { writeSecretFile } from '../../src/secret-file.ts';
import { captureLog } from '../support/captured-log.ts';
import { freePort } from '../support/free-port.ts';

const root = await mkdtemp(path.join(tmpdir(), 'vigil-pg-password-'));
await chmod(root, 0o755); // the server runs as the postgres user
const port = await freePort();
const file = passwordFile(root);

/** Every line logged, at the most verbose level, the embedded server's own output included. */
const { log, lines: logged } = captureLog('pg-password-test');

let running: EmbeddedDatabase | null = null;
const start = async (): Promise<EmbeddedDatabase> =>
  (running = await startEmbeddedPostgres(root, port, log));
const stop = async (): Promise<void> => {
  await running?.stop();
  running = null;
};
t.teardown(async () => {
  await stop();
  await rm(root, { recursive: true, force: true });
});

/** Every password the server has had, for the log check at the end. */
const seen = new Set<string>();
const kept = async (): Promise<string> => {
  const password = (await readFile(file, 'utf8')).trim();
  seen.add(password);
  return password;
};

/** The SQLSTATE of connecting over TCP with `password`, or 'ok'. */
async function connectAs(password: string): Promise<string> {
  const sql = postgres({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    password,
    database: 'postgres',
    max: 1,
    onnotice: () => {},
  });
  try {
    await sql`SELECT 1`;
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** Sets the role's password as a test's setup, the way an old Vigil or a crash left it. */
async function setPasswordTo(db: EmbeddedDatabase, password: string): Promise<void> {
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`ALTER ROLE CURRENT_USER PASSWORD '${scramVerifier(password)}'`);
  } finally {
    await sql.end({ timeout: 1 });
  }
}

const passwordOf = (db: EmbeddedDatabase): string => decodeURIComponent(new URL(db.url).password);

void t.test('the first start makes a random password, kept with mode 0600', async (t) => {
  // embedded-postgres writes the password for initdb into os.tmpdir(): never the shared one.
  const shared = tmpdir();
  const written: string[] = [];
  const watcher = watch(shared, (_event, name) => {
    if (name?.startsWith('pg-password-') === true) written.push(name);
  });
  const db = await start();
  watcher.close();
  t.same(written, [], `no password file appeared in ${shared}`);
  t.same(
    (await readdir(root)).filter((entry) => entry.startsWith('.initdb-')),
    [],
    'the private directory initdb read it from is gone',
  );
  const password = await kept();
  t.match(password, /^[0-9a-f]{64}$/, '256 random bits');
  t.equal((await stat(file)).mode & 0o777, 0o600, 'readable by its owner only');
  t.equal(passwordOf(db), password, "the URL carries the file's password");
  t.equal(await connectAs(password), 'ok', 'it opens a TCP connection');
});

void t.test('TCP on 127.0.0.1 asks for the password', async (t) => {
  t.equal(await connectAs('wrong'), '28P01', 'a wrong password is refused');
  t.equal(await connectAs(LEGACY_PASSWORD), '28P01', 'so is the old fixed one');
  const hba = (await readFile(path.join(root, 'pg', 'pg_hba.conf'), 'utf8'))
    .split('\n')
    .filter((line) => /^(local|host)/.test(line));
  t.ok(hba.length > 0, 'pg_hba.conf has rules');
  t.same(
    hba.filter((line) => !line.trim().endsWith('scram-sha-256')),
    [],
    'every rule asks for a SCRAM password (none trusts)',
  );
});

void t.test('a second start reuses the kept password', async (t) => {
  const before = await kept();
  await stop();
  const db = await start();
  t.equal(await kept(), before, 'the file is unchanged');
  t.equal(passwordOf(db), before);
  t.equal(await connectAs(before), 'ok');
});

void t.test('a cluster made with the old fixed password is moved to a random one', async (t) => {
  // What an older Vigil left: the old password and no file.
  await setPasswordTo(running as EmbeddedDatabase, LEGACY_PASSWORD);
  const before = await kept();
  await stop();
  await unlink(file);
  const db = await start();
  const after = await kept();
  t.match(after, /^[0-9a-f]{64}$/, 'a new random password is kept');
  t.not(after, before);
  t.equal((await stat(file)).mode & 0o777, 0o600);
  t.equal(passwordOf(db), after);
  t.equal(await connectAs(after), 'ok', 'the server takes it');
  t.equal(await connectAs(LEGACY_PASSWORD), '28P01', 'and no longer the old one');
  t.ok(
    logged.some((line) => line.includes('had the old default password')),
    'the log says so',
  );
});

void t.test('a migration cut short after ALTER ROLE finishes on the next start', async (t) => {
  // The crash came after the server took the pending password and before the file was renamed.
  const pending = 'a'.repeat(64);
  await writeSecretFile(`${file}.pending`, pending);
  await setPasswordTo(running as EmbeddedDatabase, pending);
  await stop();
  await unlink(file);
  const db = await start();
  t.equal(await kept(), pending, 'the pending password became the kept one');
  t.equal(passwordOf(db), pending);
  t.equal(await connectAs(pending), 'ok');
});

void t.test('a cluster without a file that refuses the old password: start-up fails', async (t) => {
  // The server takes 'a'*64 (the test above), but nothing says so any more.
  await stop();
  await unlink(file);
  const failure = await start().then(
    () => null,
    (error: unknown) => error as Error,
  );
  t.match(failure?.message, /no password file and refuses/, 'start-up fails, saying why');
  t.match(failure?.message, file, 'naming the file to write');
  t.equal(await connectAs('a'.repeat(64)), 'ECONNREFUSED', 'the server it started is stopped');
  await writeSecretFile(file, 'a'.repeat(64));
  await start();
  t.equal(await connectAs('a'.repeat(64)), 'ok', 'the password written back is used');
});

void t.test('no log line shows a password', async (t) => {
  const passwords = new Set([
    ...seen,
    'a'.repeat(64),
    (await readFile(`${file}.pending`, 'utf8')).trim(),
  ]);
  t.ok(logged.length > 10, `the log was captured (${logged.length} lines)`);
  for (const password of passwords) {
    t.equal(
      logged.filter((line) => line.includes(password)).length,
      0,
      `no line has ${password.slice(0, 6)}…`,
    );
  }
  t.ok(
    logged.some((line) => line.includes('embedded PostgreSQL started')),
    'the start-up lines are among them',
  );
});
