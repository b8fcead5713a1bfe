// Fan-out and backpressure: the broadcaster with fake sockets, then slow clients on real sockets.
import t from 'tap';
import { Broadcaster } from '../../src/stomp/broadcaster.ts';
import type { BroadcastSocket, SubscriberOwner } from '../../src/stomp/broadcaster.ts';
import { FrameDecoder } from '../../src/stomp/frame.ts';
import { RawClient, connectRaw, startServer, until } from './helpers.ts';

class FakeSocket implements BroadcastSocket {
  buffered = 0;
  status = 1;
  readonly sent: string[] = [];
  send(message: Uint8Array): number {
    // Copy, as uWS does: the broadcaster reuses its buffer for the next socket.
    this.sent.push(Buffer.from(message).toString('utf8'));
    return this.status;
  }
  getBufferedAmount(): number {
    return this.buffered;
  }
}

class FakeOwner implements SubscriberOwner {
  seq = 0;
  lastSent = -1;
  constructor(
    readonly name: string,
    readonly escapesHeaders = true,
  ) {}
  nextMessageId(): string {
    this.seq += 1;
    return `${this.name}-${this.seq}`;
  }
  noteSent(now: number): void {
    this.lastSent = now;
  }
}

function setup(): {
  b: Broadcaster<FakeSocket>;
  closed: Array<[FakeSocket, string]>;
} {
  const closed: Array<[FakeSocket, string]> = [];
  const b = new Broadcaster<FakeSocket>({
    softBufferBytes: 100,
    hardBufferBytes: 1000,
    slowClientTimeoutMs: 50,
    closeSlow: (socket, reason) => closed.push([socket, reason]),
  });
  return { b, closed };
}

void t.test('one body, per-subscription heads; each frame decodes', (t) => {
  const { b } = setup();
  const s1 = new FakeSocket();
  const s2 = new FakeSocket();
  const o1 = new FakeOwner('a');
  const o2 = new FakeOwner('b');
  b.add(s1, o1, 'x:1', '/topic/metrics');
  b.add(s1, o1, 'alerts', '/topic/alerts');
  b.add(s2, o2, 'y', '/topic/metrics');
  t.equal(b.subscriptionCount(), 3);
  b.publish('/topic/metrics', '{"é":1}', 10);
  t.same(s1.sent, [
    'MESSAGE\ndestination:/topic/metrics\ncontent-type:application/json\nsubscription:x\\c1\n' +
      'message-id:a-1\ncontent-length:8\n\n{"é":1}\0',
  ]);
  const decoded = new FrameDecoder(1 << 16).push(Buffer.from(s2.sent[0] ?? ''));
  t.equal(decoded.error, null);
  t.same(Object.fromEntries(decoded.frames[0]?.headers ?? []), {
    destination: '/topic/metrics',
    'content-type': 'application/json',
    subscription: 'y',
    'message-id': 'b-1',
    'content-length': '8',
  });
  t.equal(o1.lastSent, 10, 'a MESSAGE counts as outgoing activity for heart-beats');
  t.same(b.stats, { published: 1, delivered: 2, skipped: 0, closedSlow: 0, tailDropped: 0 });
  t.end();
});

void t.test('a subscription that acknowledges gets its message-id again as ack', (t) => {
  const { b } = setup();
  const socket = new FakeSocket();
  b.add(socket, new FakeOwner('a'), 'c', '/topic/metrics', true);
  b.publish('/topic/metrics', '{}', 0);
  const decoded = new FrameDecoder(1 << 16).push(Buffer.from(socket.sent[0] ?? ''));
  const headers = Object.fromEntries(decoded.frames[0]?.headers ?? []);
  t.equal(headers['message-id'], 'a-1');
  t.equal(headers.ack, 'a-1');
  t.end();
});

void t.test('very long heads fall back to a concatenation', (t) => {
  const { b } = setup();
  const s = new FakeSocket();
  const id = 'i'.repeat(2000);
  b.add(s, new FakeOwner('a'), id, '/topic/alerts');
  b.publish('/topic/alerts', '[]', 0);
  t.match(
    s.sent[0],
    new RegExp(`subscription:${id}\nmessage-id:a-1\ncontent-length:2\n\n\\[\\]\0$`),
  );
  t.end();
});

void t.test('STOMP 1.0 owners get unescaped heads', (t) => {
  const { b } = setup();
  const s = new FakeSocket();
  b.add(s, new FakeOwner('a', false), 'p:q', '/topic/alerts');
  b.publish('/topic/alerts', '1', 0);
  t.match(s.sent[0], /subscription:p:q\n/);
  t.end();
});

void t.test('remove, removeSocket, re-add with the same id', (t) => {
  const { b } = setup();
  const s = new FakeSocket();
  const o = new FakeOwner('a');
  b.add(s, o, '1', '/topic/metrics');
  b.add(s, o, '1', '/topic/alerts');
  t.equal(b.subscriptionCount(), 1, 'same id replaces');
  b.publish('/topic/metrics', '1', 0);
  t.equal(s.sent.length, 0);
  b.remove(s, '1');
  b.remove(s, 'nope');
  b.publish('/topic/alerts', '1', 0);
  t.equal(s.sent.length, 0);
  b.add(s, o, '2', '/topic/alerts');
  b.removeSocket(s);
  b.removeSocket(s);
  b.publish('/topic/alerts', '1', 0);
  t.equal(s.sent.length, 0);
  t.equal(b.subscriptionCount(), 0);
  t.end();
});

void t.test('over the soft limit: skipped; stalled past the timeout: closed', (t) => {
  const { b, closed } = setup();
  const slow = new FakeSocket();
  const fast = new FakeSocket();
  b.add(slow, new FakeOwner('s'), '1', '/topic/metrics');
  b.add(fast, new FakeOwner('f'), '1', '/topic/metrics');
  slow.buffered = 101;
  b.publish('/topic/metrics', '1', 0);
  b.publish('/topic/metrics', '2', 20);
  t.equal(slow.sent.length, 0);
  t.equal(fast.sent.length, 2);
  slow.buffered = 0;
  b.publish('/topic/metrics', '3', 30);
  t.equal(slow.sent.length, 1, 'caught up: receives the newest, not a backlog');
  t.match(slow.sent[0], /\n\n3\0$/);
  slow.buffered = 500;
  b.publish('/topic/metrics', '4', 40);
  b.publish('/topic/metrics', '5', 89);
  t.same(closed, []);
  b.publish('/topic/metrics', '6', 90);
  t.same(closed, [[slow, 'stalled']]);
  t.equal(fast.sent.length, 6);
  t.equal(b.subscriptionCount(), 1, 'the closed socket is forgotten');
  t.match(b.stats, { skipped: 5, closedSlow: 1 });
  t.end();
});

void t.test('hard limit and dropped sends close the socket', (t) => {
  const { b, closed } = setup();
  const grows = new FakeSocket();
  const dropped = new FakeSocket();
  const over = new FakeSocket();
  const o = new FakeOwner('o');
  b.add(grows, o, '1', '/topic/alerts');
  b.add(dropped, o, '1', '/topic/alerts');
  b.add(over, o, '1', '/topic/alerts');
  grows.send = (m) => {
    FakeSocket.prototype.send.call(grows, m);
    grows.buffered = 5000;
    return 0;
  };
  dropped.status = 2;
  over.buffered = 1001;
  b.sendTo(grows, '1', 'x', 0);
  b.publish('/topic/alerts', 'x', 0);
  t.same(closed, [
    [grows, 'hard-limit'],
    [dropped, 'dropped'],
    [over, 'hard-limit'],
  ]);
  b.sendTo(grows, '1', 'x', 0);
  t.equal(grows.sent.length, 1, 'no send to a forgotten socket');
  t.end();
});

void t.test('a frame larger than the hard limit reaches a reader that keeps up', (t) => {
  const { b, closed } = setup(); // soft 100, hard 1000
  const reader = new FakeSocket();
  b.add(reader, new FakeOwner('r'), '1', '/topic/metrics');
  // Nothing reaches the kernel at once: the whole frame waits in the user-space buffer.
  reader.send = (m) => {
    FakeSocket.prototype.send.call(reader, m);
    reader.buffered += m.length;
    return 0;
  };
  const snapshot = JSON.stringify({ pad: 'x'.repeat(5000) });
  b.sendTo(reader, '1', snapshot, 0);
  t.ok(reader.buffered > 1000, 'the frame alone is over the hard limit');
  t.equal(b.closeIfOverHardLimit(reader), false, 'a RECEIPT sent while it drains: still open');
  b.publish('/topic/metrics', snapshot, 1);
  t.equal(reader.sent.length, 1, 'skipped while over the soft limit');
  reader.buffered = 0; // the reader drained it
  b.publish('/topic/metrics', snapshot, 2);
  t.equal(reader.sent.length, 2, 'the next one is delivered');
  t.same(closed, [], 'never closed');
  // What is queued beyond the frame stays bounded: a client that sends but does not read.
  reader.buffered += 1001;
  t.equal(b.closeIfOverHardLimit(reader), true);
  t.same(closed, [[reader, 'hard-limit']]);
  t.end();
});

void t.test(
  'real sockets: a snapshot far larger than the hard limit reaches a reading client, which stays',
  async (t) => {
    const server = await startServer({ softBufferBytes: 64 * 1024, hardBufferBytes: 256 * 1024 });
    t.teardown(() => server.stop());
    // Larger than the kernel's socket buffers take at once: most of it waits in uWS's buffer.
    const snapshot = JSON.stringify({ pad: 's'.repeat(12 * 1024 * 1024) });
    server.snapshot = snapshot;
    const c = await connectRaw(server.url());
    // The RECEIPT is sent just after the snapshot, while the snapshot still waits to be written.
    c.send(
      'SUBSCRIBE\nid:m\ndestination:/topic/metrics\n\n\0' +
        'SUBSCRIBE\nid:a\ndestination:/topic/alerts\nreceipt:r\n\n\0',
    );
    await c.waitFrames(3);
    t.same(
      c.frames.slice(1).map((f) => f.command),
      ['MESSAGE', 'RECEIPT'],
    );
    t.equal(c.frames[1]?.body, snapshot, 'the whole snapshot');
    server.endpoint.publish('/topic/metrics', snapshot);
    await c.waitFrames(4);
    t.equal(c.frames[3]?.body, snapshot, 'and the next broadcast');
    t.equal(server.endpoint.sessionCount(), 1, 'the client is still connected');
    t.match(server.endpoint.stats(), { delivered: 2, closedSlow: 0 });
    c.ws.close();
  },
);

void t.test(
  'real sockets: large and small publishes, each session with its own subscription header',
  async (t) => {
    const server = await startServer();
    t.teardown(() => server.stop());
    const escaped = await connectRaw(server.url());
    const plain = new RawClient(server.url(), ['v10.stomp']);
    await plain.opened;
    plain.send('CONNECT\n\n\0');
    await plain.waitFrames(1);
    const other = await connectRaw(server.url());
    const wire = new Map<RawClient, string[]>();
    const subscribe: Array<[RawClient, string]> = [
      [escaped, 'id:m\\c1'],
      [plain, 'id:m:1'],
      [other, 'id:x'],
    ];
    for (const [c, idHeader] of subscribe) {
      c.send(`SUBSCRIBE\n${idHeader}\ndestination:/topic/metrics\nreceipt:r\n\n\0`);
      await c.waitFrames(2);
      const messages: string[] = [];
      c.ws.on('message', (data: Buffer) => messages.push(data.toString('utf8')));
      wire.set(c, messages);
    }

    // Above 16 KiB uWS writes a message straight from the shared buffer; below, it copies it.
    const large = JSON.stringify({ pad: 'ü'.repeat(100_000) });
    const bodies = [large, '{"small":1}', large];
    for (const body of bodies) server.endpoint.publish('/topic/metrics', body);
    for (const [c] of subscribe) await c.waitFrames(2 + bodies.length);

    const expected: Array<[RawClient, string, string]> = [
      [escaped, 'm:1', 'subscription:m\\c1\n'],
      [plain, 'm:1', 'subscription:m:1\n'],
      [other, 'x', 'subscription:x\n'],
    ];
    for (const [c, subscription, onWire] of expected) {
      const messages = c.frames.slice(2);
      t.same(
        messages.map((m) => m.body),
        bodies,
        `${subscription}: every body, whole, in order`,
      );
      for (const m of messages) {
        t.match(m.headers, {
          destination: '/topic/metrics',
          subscription,
          'content-length': String(Buffer.byteLength(m.body)),
        });
      }
      t.equal(new Set(messages.map((m) => m.headers['message-id'])).size, bodies.length);
      t.ok(
        wire.get(c)?.every((w) => w.includes(onWire)),
        `${subscription}: the header as sent (${onWire.trim()})`,
      );
    }
    t.match(server.endpoint.stats(), { delivered: 3 * bodies.length, skipped: 0, closedSlow: 0 });
    for (const [c] of subscribe) c.ws.close();
  },
);

void t.test(
  'real sockets: a client that never reads is skipped, then closed; others keep up',
  async (t) => {
    // The endpoint's clock moves only when the stall timeout is to run out.
    let clock = Date.now();
    const server = await startServer({
      softBufferBytes: 64 * 1024,
      hardBufferBytes: 64 * 1024 * 1024,
      slowClientTimeoutMs: 200,
      now: () => clock,
    });
    t.teardown(() => server.stop());
    const fast = await connectRaw(server.url());
    const slow = await connectRaw(server.url());
    for (const c of [fast, slow]) {
      c.send('SUBSCRIBE\nid:m\ndestination:/topic/metrics\nreceipt:r\n\n\0');
      await c.waitFrames(2);
    }
    slow.ws.pause(); // stops reading: the kernel buffers fill, then uWS's buffer grows

    const body = JSON.stringify({ pad: 'p'.repeat(256 * 1024) });
    let published = 0;
    while (server.endpoint.sessionCount() === 2 && published < 400) {
      server.endpoint.publish('/topic/metrics', body);
      published += 1;
      await fast.waitFrames(2 + published); // the fast client receives every single publish
      if (server.endpoint.stats().skipped > 0) clock += 100; // skipped for 100 ms more
    }
    const stats = server.endpoint.stats();
    t.ok(stats.skipped > 0, 'the slow client was skipped');
    t.equal(stats.closedSlow, 1, 'and then closed');
    t.match(server.logs, [{ fields: { reason: 'stalled' }, message: /slow client/ }]);
    t.equal(fast.frames.length, 2 + published);
    t.ok(fast.frames.slice(2).every((f) => f.command === 'MESSAGE' && f.body === body));

    server.endpoint.publish('/topic/metrics', '{"after":1}');
    await fast.waitFrames(3 + published);
    t.equal(fast.frames.at(-1)?.body, '{"after":1}');
    slow.ws.terminate();
    fast.ws.close();
  },
);

void t.test(
  'real sockets: a client that stops reading is closed or skipped, never buffered past the hard limit',
  async (t) => {
    const server = await startServer({
      // How much of a 400 KiB message the kernel absorbs decides which bound acts first: past the
      // hard limit the client is closed; below it, over the soft one, it is skipped. (The unit test
      // above pins the hard-limit close itself.)
      softBufferBytes: 128 * 1024,
      hardBufferBytes: 256 * 1024,
      slowClientTimeoutMs: 3_600_000,
    });
    t.teardown(() => server.stop());
    const fast = await connectRaw(server.url());
    const slow = new RawClient(server.url());
    await slow.opened;
    slow.send('CONNECT\naccept-version:1.2\n\n\0SUBSCRIBE\nid:m\ndestination:/topic/metrics\n\n\0');
    await slow.waitFrames(1);
    fast.send('SUBSCRIBE\nid:m\ndestination:/topic/metrics\nreceipt:r\n\n\0');
    await fast.waitFrames(2);
    slow.ws.pause();

    const body = JSON.stringify({ pad: 'h'.repeat(400 * 1024) });
    let published = 0;
    while (server.endpoint.sessionCount() === 2 && published < 100) {
      server.endpoint.publish('/topic/metrics', body);
      published += 1;
      await fast.waitFrames(2 + published);
    }
    // Closed by our broadcaster (hard-limit), or skipped since it passed the soft one.
    const { skipped } = server.endpoint.stats();
    t.ok(
      server.endpoint.sessionCount() === 1 || skipped > 0,
      'the slow client is closed or skipped',
    );
    t.equal(server.endpoint.sessionCount() >= 1, true, 'the fast client stays');
    await until(() => fast.frames.length === 2 + published, 'fast client got everything');
    slow.ws.terminate();
    fast.ws.close();
  },
);
