// A start-up that fails after the embedded PostgreSQL is up (here: the HTTP port is taken) undoes
// what it started: the error names the cause, and no PostgreSQL is left running on the data dir.
import { createServer } from 'node:net';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { startService } from '../../src/service.ts';
import { freePort } from '../support/free-port.ts';
import { postmasterPid } from '../support/processes.ts';

/** True when something accepts a TCP connection on 127.0.0.1:port. */
const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

void t.test('port taken: start-up fails and stops its embedded PostgreSQL', async (t) => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'vigil-start-failure-'));
  await chmod(dataDir, 0o755);
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const takenPort = (holder.address() as { port: number }).port;
  const pgPort = await freePort();
  t.teardown(async () => {
    await new Promise((resolve) => holder.close(resolve));
    await rm(dataDir, { recursive: true, force: true });
  });

  const config = loadConfig({
    PORT: String(takenPort),
    HOST: '127.0.0.1',
    VIGIL_DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(pgPort),
    LOG_LEVEL: 'silent',
  });
  const failure = await startService(config, createLogger('silent', 'test')).then(
    () => null,
    (error: unknown) => error,
  );
  t.ok(failure instanceof Error, 'start-up rejects');
  t.match(String((failure as Error).message), String(takenPort), 'the error names the port');
  t.equal(postmasterPid(path.join(dataDir, 'pg')), null, 'no postmaster.pid left');
  t.equal(await accepts(pgPort), false, 'nothing listens on the PostgreSQL port');
});
