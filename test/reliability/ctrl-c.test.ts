// Ctrl-C and SIGTERM with the embedded PostgreSQL: the service stops in order (the front, the
// threads, then PostgreSQL), exits 0, logs no error, and leaves no postgres process behind.
// Ctrl-C is SIGINT to the terminal's whole foreground group: the service's group here; the
// embedded PostgreSQL runs in a group of its own, so only the service stops it, last.
import t, { type Test } from 'tap';
import { embeddedDataDir } from '../support/run-databases.ts';
import { keyHeaders } from '../support/keys.ts';
import { childrenOf, isAlive, postmasterPid } from '../support/processes.ts';
import { spawnVigil, type ServerProcess } from '../support/service-process.ts';

/** Requests that leave work for the drain: stored events and a key use to record. */
async function use(t: Test, proc: ServerProcess): Promise<void> {
  let accepted = 0;
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`${proc.url}/api/v1/events`, {
      method: 'POST',
      headers: { ...keyHeaders(), 'content-type': 'application/json' },
      body: JSON.stringify({
        eventType: 'ctrl-c',
        source: 'test',
        timestamp: new Date().toISOString(),
        metadata: { i },
      }),
    });
    if (res.status === 202) accepted++;
    await res.arrayBuffer();
  }
  t.equal(accepted, 20, 'events accepted');
  const rules = await fetch(`${proc.url}/api/v1/rules`, { headers: keyHeaders() });
  t.equal(rules.status, 200, 'an authenticated read');
  await rules.arrayBuffer();
}

const cases: [string, (proc: ServerProcess) => void][] = [
  ['Ctrl-C (SIGINT to the service process group)', (proc) => process.kill(-proc.pid, 'SIGINT')],
  ['SIGTERM to the service process', (proc) => proc.signal('SIGTERM')],
];

for (const [label, send] of cases) {
  void t.test(label, async (t) => {
    const db = await embeddedDataDir();
    t.teardown(() => db.cleanup());
    const proc = await spawnVigil({ env: db.env, name: 'vigil(ctrl-c)', forward: false });
    await use(t, proc);
    const pid = postmasterPid(db.pgDataDir as string);
    t.not(pid, null, 'the embedded PostgreSQL runs');
    const postgres = pid === null ? [] : [pid, ...childrenOf(pid)];
    send(proc);
    const exit = await proc.waitExit(60_000);
    t.equal(exit?.code, 0, 'exit 0');
    t.ok(proc.logged(/"msg":"stopped"/), 'stopped in order to the end');
    const errors = proc
      .tail(500)
      .split('\n')
      .filter((line) => /^\{"level":(50|60)/.test(line));
    t.same(errors, [], 'no error logged');
    t.notOk(proc.logged(/second signal/), 'one signal, seen once');
    t.same(postgres.filter(isAlive), [], 'no postgres process left (postmaster and backends)');
  });
}
