// Slow and abusive WebSocket clients against the STOMP endpoint: a client that never reads, huge
// and endless frames and messages, sockets that never CONNECT. Each is dropped; well-behaved
// subscribers keep receiving the metrics every second; memory stays bounded.
import t from 'tap';
import { runDatabase } from '../support/run-databases.ts';
import { freePort } from '../support/free-port.ts';
import { spawnVigil, stopServer } from '../support/service-process.ts';
import { runWsAbuse } from '../support/reliability/ws-abuse.ts';

void t.test('abusers dropped, subscribers keep their cadence', async (t) => {
  const db = await runDatabase();
  t.teardown(() => db.cleanup());
  const proc = await spawnVigil({ port: await freePort(), env: { ...db.env }, forward: false });
  t.teardown(async () => {
    if (proc.exit() === null) await stopServer(proc);
  });
  const r = await runWsAbuse(proc, { subscribers: 3, idleSockets: 50, dropTimeoutMs: 25_000 });
  for (const a of r.abusers) {
    t.ok(a.dropped, `${a.client} (${a.behaviour}): dropped after ${a.droppedAfterMs} ms, ${a.how}`);
  }
  t.equal(r.subscribersClosed, 0, 'no well-behaved subscriber closed');
  for (const [i, c] of r.cadence.entries()) {
    t.ok(c.seconds >= 5, `subscriber ${i + 1} observed ${c.seconds} s of abuse`);
    t.ok(c.maxGapMs <= 2500, `subscriber ${i + 1}: longest gap ${c.maxGapMs} ms`);
  }
  t.ok(
    (r.rssMaxKiB ?? 0) - (r.rssBeforeKiB ?? 0) < 150 * 1024,
    `RSS bounded (${(r.rssBeforeKiB ?? 0) >> 10} -> max ${(r.rssMaxKiB ?? 0) >> 10} MiB)`,
  );
  t.equal((await stopServer(proc)).code, 0, 'exit 0 after SIGTERM');
});
