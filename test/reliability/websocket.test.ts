// Slow and abusive WebSocket clients against the STOMP endpoint: a client that never reads, huge
// and endless frames and messages, sockets that never CONNECT. Each is dropped; well-behaved
// subscribers keep receiving the metrics broadcasts, never closed; memory stays bounded. (How
// regular the broadcasts stay is a timing figure: bench:chaos reports it, no test asserts it.)
import t from 'tap';
import { runDatabase } from '../support/run-databases.ts';
import { freePort } from '../support/free-port.ts';
import { spawnVigil, stopServer } from '../support/service-process.ts';
import { runWsAbuse } from '../support/reliability/ws-abuse.ts';
import { connectRaw, until } from '../stomp/helpers.ts';

void t.test('abusers dropped, subscribers keep receiving', async (t) => {
  const db = await runDatabase();
  t.teardown(() => db.cleanup());
  const proc = await spawnVigil({ port: await freePort(), env: { ...db.env }, forward: false });
  t.teardown(async () => {
    if (proc.exit() === null) await stopServer(proc);
  });
  // A subscriber of the test's own, counting the broadcasts it gets during and after the abuse.
  const witness = await connectRaw(`ws://127.0.0.1:${proc.port}/ws`);
  t.teardown(() => witness.ws.terminate());
  witness.send('SUBSCRIBE\nid:w\ndestination:/topic/metrics\nreceipt:w\n\n\0');
  await witness.waitFrames(3);
  const atStart = witness.frames.length;
  const r = await runWsAbuse(proc, { subscribers: 3, idleSockets: 50, dropTimeoutMs: 25_000 });
  for (const a of r.abusers) {
    t.ok(a.dropped, `${a.client} (${a.behaviour}): dropped after ${a.droppedAfterMs} ms, ${a.how}`);
  }
  t.equal(r.subscribersClosed, 0, 'no well-behaved subscriber closed');
  const duringAbuse = witness.frames.length - atStart;
  // The abuse lasts at least the server's CONNECT timeout (the idle sockets): many 1 s broadcasts.
  t.ok(duringAbuse >= 3, `the witness kept receiving broadcasts during the abuse (${duringAbuse})`);
  const seen = witness.frames.length;
  await until(() => witness.frames.length >= seen + 2, 'two broadcasts after the abuse');
  t.equal(witness.ws.readyState, witness.ws.OPEN, 'and after it, still connected');
  t.ok(
    witness.frames.slice(atStart).every((f) => f.command === 'MESSAGE'),
    'only MESSAGEs: no ERROR frame for a well-behaved subscriber',
  );
  for (const [i, c] of r.cadence.entries()) {
    t.comment(`subscriber ${i + 1}: ${c.seconds} s of abuse, longest gap ${c.maxGapMs} ms`);
    t.ok(c.perSecondMax >= 1, `subscriber ${i + 1} received broadcasts during the abuse`);
  }
  t.ok(
    (r.rssMaxKiB ?? 0) - (r.rssBeforeKiB ?? 0) < 150 * 1024,
    `RSS bounded (${(r.rssBeforeKiB ?? 0) >> 10} -> max ${(r.rssMaxKiB ?? 0) >> 10} MiB)`,
  );
  t.equal((await stopServer(proc)).code, 0, 'exit 0 after SIGTERM');
});
