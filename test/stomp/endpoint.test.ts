// The STOMP endpoint over real sockets: a uWS app on port 0, @stomp/stompjs and raw `ws` clients.
import t from 'tap';
import { nativeUws } from '../../src/http/uws.ts';
import WebSocket from 'ws';
import type { IMessage } from '@stomp/stompjs';
import { createConnectionLimit } from '../../src/http/connection-limit.ts';
import { attachStomp } from '../../src/stomp/endpoint.ts';
import { RawClient, connectRaw, connectStomp, startServer, until } from './helpers.ts';

void t.test(
  'stompjs: CONNECT, snapshot on SUBSCRIBE, publishes, UNSUBSCRIBE, DISCONNECT',
  async (t) => {
    const server = await startServer();
    t.teardown(() => server.stop());
    server.snapshot = '{"summary":{"totalEvents":1}}';

    const { client, connected } = await connectStomp(server.url());
    t.match(connected.headers, { version: '1.2', server: 'vigil/0.0.0-test' });
    t.equal(server.endpoint.sessionCount(), 1);

    const metrics: IMessage[] = [];
    const alerts: IMessage[] = [];
    const subscribed = new Promise<void>((resolve) =>
      client.watchForReceipt('s1', () => resolve()),
    );
    const metricsSub = client.subscribe('/topic/metrics', (m) => metrics.push(m), {
      id: 'metrics-1',
      receipt: 's1',
    });
    client.subscribe('/topic/alerts', (m) => alerts.push(m), { id: 'alerts:1' });
    await subscribed;
    t.equal(metrics.length, 1, 'the current snapshot arrives at once');
    t.equal(metrics[0]?.body, '{"summary":{"totalEvents":1}}');

    server.endpoint.publish('/topic/metrics', '{"summary":{"totalEvents":2}}');
    server.endpoint.publish('/topic/alerts', '{"rule":"ünïcødé"}');
    await until(() => metrics.length === 2 && alerts.length === 1, 'both publishes');
    t.match(metrics[1]?.headers, {
      destination: '/topic/metrics',
      subscription: 'metrics-1',
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength('{"summary":{"totalEvents":2}}')),
    });
    t.equal(metrics[1]?.body, '{"summary":{"totalEvents":2}}');
    t.match(alerts[0]?.headers, { destination: '/topic/alerts', subscription: 'alerts:1' });
    t.equal(alerts[0]?.body, '{"rule":"ünïcødé"}');
    const ids = [...metrics, ...alerts].map((m) => m.headers['message-id']);
    t.equal(new Set(ids).size, 3, 'message-ids are unique');

    const unsubscribed = new Promise<void>((resolve) =>
      client.watchForReceipt('u1', () => resolve()),
    );
    metricsSub.unsubscribe({ receipt: 'u1' });
    await unsubscribed;
    server.endpoint.publish('/topic/metrics', '{"after":"unsubscribe"}');
    server.endpoint.publish('/topic/alerts', '{"marker":true}');
    await until(() => alerts.length === 2, 'the marker alert');
    t.equal(metrics.length, 2, 'nothing after UNSUBSCRIBE (the later alert arrived first)');

    const disconnected = new Promise<string | undefined>((resolve) => {
      client.onDisconnect = (frame) => resolve(frame.headers['receipt-id']);
    });
    await client.deactivate();
    t.match(await disconnected, /^close-/, 'DISCONNECT answered with its RECEIPT');
    await until(() => server.endpoint.sessionCount() === 0, 'session closed');
    t.same(server.logs, []);
  },
);

void t.test('a subscriber before the first snapshot gets only publishes', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const c = await connectRaw(server.url('/ws/websocket'));
  c.send('SUBSCRIBE\nid:0\ndestination:/topic/metrics\nreceipt:r\n\n\0');
  await c.waitFrames(2);
  t.equal(c.frames[1]?.command, 'RECEIPT');
  server.endpoint.publish('/topic/metrics', '{}');
  await c.waitFrames(3);
  t.match(c.frames[2], { command: 'MESSAGE', headers: { subscription: '0' }, body: '{}' });
  c.ws.close();
});

void t.test('a frame split over several WebSocket messages', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const c = new RawClient(server.url());
  await c.opened;
  c.send('CONNECT\naccept-ver');
  c.send('sion:1.2\n\n');
  c.send('\0\nSUBSCRIBE\nid:1\ndestination:/topic/alerts\nreceipt:r\n\n\0');
  await c.waitFrames(2);
  t.same(
    c.frames.map((f) => f.command),
    ['CONNECTED', 'RECEIPT'],
  );
  c.ws.close();
});

const errorPaths: Array<[string, string | Uint8Array, RegExp, number, boolean]> = [
  ['bad command', 'FROB\n\n\0', /unknown command/, 1002, true],
  ['missing destination', 'SUBSCRIBE\nid:1\n\n\0', /missing destination/, 1002, true],
  [
    'unknown destination',
    'SUBSCRIBE\nid:1\ndestination:/topic/x\n\n\0',
    /unknown dest/,
    1002,
    true,
  ],
  ['SEND (read-only)', 'SEND\ndestination:/topic/alerts\n\n{}\0', /read-only/, 1002, true],
  [
    'frame before CONNECT',
    'SUBSCRIBE\nid:1\ndestination:/topic/alerts\n\n\0',
    /CONNECT/,
    1002,
    false,
  ],
  ['oversize frame', `SEND\ndestination:/a\n\n${'x'.repeat(3000)}\0`, /too-large/, 1009, true],
  ['garbage bytes', Uint8Array.of(0xde, 0xad, 0xbe, 0xef, 0, 1, 2), /malformed/, 1002, false],
  ['invalid escape', 'SUBSCRIBE\nid:\\q\ndestination:/topic/alerts\n\n\0', /escape/, 1002, true],
];

for (const [name, wire, message, code, afterConnect] of errorPaths) {
  void t.test(`raw ws: ${name} -> ERROR frame, then close`, async (t) => {
    const server = await startServer({ maxFrameBytes: 2048 });
    t.teardown(() => server.stop());
    const c = afterConnect ? await connectRaw(server.url()) : new RawClient(server.url());
    await c.opened;
    const before = c.frames.length;
    c.send(wire);
    const closed = await c.closed;
    const error = c.frames[before];
    t.equal(error?.command, 'ERROR');
    t.match(`${error?.headers.message ?? ''} ${error?.body ?? ''}`, message);
    t.equal(c.frames.length, before + 1, 'nothing after the ERROR');
    t.equal(closed.code, code);
    await until(() => server.endpoint.sessionCount() === 0, 'session removed');
  });
}

void t.test('WebSocket messages above maxMessageBytes are cut off by uWS', async (t) => {
  const server = await startServer({ maxFrameBytes: 1024, maxMessageBytes: 1024 });
  t.teardown(() => server.stop());
  const c = await connectRaw(server.url());
  c.send('x'.repeat(5000));
  const closed = await c.closed;
  t.not(closed.code, 1000);
  await until(() => server.endpoint.sessionCount() === 0, 'session removed');
});

void t.test('subprotocol negotiation', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const cases: Array<[string[], string, string, string]> = [
    [['v10.stomp', 'v11.stomp', 'v12.stomp'], 'v12.stomp', '1.0,1.1,1.2', '1.2'],
    [['v10.stomp', 'v11.stomp'], 'v11.stomp', '1.0,1.1,1.2', '1.1'],
    [['v10.stomp'], 'v10.stomp', '', '1.0'],
    [[], '', '1.1,1.2', '1.2'],
  ];
  for (const [offer, protocol, accept, version] of cases) {
    const c = new RawClient(server.url(), offer);
    await c.opened;
    t.equal(c.ws.protocol, protocol, `offer ${offer.join(',') || 'none'}`);
    const acceptHeader = accept === '' ? '' : `accept-version:${accept}\n`;
    c.send(`CONNECT\n${acceptHeader}\n\0`);
    await c.waitFrames(1);
    t.match(c.frames[0], { command: 'CONNECTED', headers: { version } });
    c.ws.close();
    await c.closed;
  }
  const strict = new RawClient(server.url(), ['v11.stomp']);
  await strict.opened;
  strict.send('CONNECT\naccept-version:1.2\n\n\0');
  await strict.closed;
  t.match(strict.frames[0], { command: 'ERROR', headers: { version: '1.1,1.0' } });
});

void t.test('heart-beats: server EOLs, and a silent client is closed', async (t) => {
  const server = await startServer({ heartbeatSendMs: 20, heartbeatExpectMs: 20 });
  t.teardown(() => server.stop());
  const listener = new RawClient(server.url());
  await listener.opened;
  listener.send('CONNECT\naccept-version:1.2\nheart-beat:0,20\n\n\0');
  await until(() => listener.heartbeats >= 3, 'three server heart-beats');
  t.match(listener.frames[0]?.headers, { 'heart-beat': '20,20' });
  listener.ws.close();

  const silent = new RawClient(server.url());
  await silent.opened;
  silent.send('CONNECT\naccept-version:1.2\nheart-beat:20,0\n\n\0');
  const closed = await silent.closed;
  t.equal(closed.code, 1008);
  t.match(silent.frames.at(-1), { command: 'ERROR', headers: { message: 'heart-beat timeout' } });
});

void t.test('a client that keeps sending heart-beats stays connected', async (t) => {
  const server = await startServer({ heartbeatSendMs: 0, heartbeatExpectMs: 100 });
  t.teardown(() => server.stop());
  const beating = new RawClient(server.url());
  await beating.opened;
  beating.send('CONNECT\naccept-version:1.2\nheart-beat:100,0\n\n\0');
  await beating.waitFrames(1);
  t.match(beating.frames[0]?.headers, { 'heart-beat': '0,100' });
  let sent = 0;
  const pinger = setInterval(() => {
    beating.send('\n');
    sent += 1;
  }, 10);
  t.teardown(() => clearInterval(pinger));
  // Several silence limits (2 x 100 ms) pass while the client keeps beating.
  await until(() => sent >= 60, 'sixty client heart-beats');
  clearInterval(pinger);
  t.equal(beating.ws.readyState, WebSocket.OPEN);
  t.equal(server.endpoint.sessionCount(), 1);
  beating.ws.close();
});

void t.test('a client that never sends CONNECT is closed', async (t) => {
  const server = await startServer({ connectTimeoutMs: 50 });
  t.teardown(() => server.stop());
  const c = new RawClient(server.url());
  await c.opened;
  const closed = await c.closed;
  t.equal(closed.code, 1008);
  t.match(c.frames, [{ command: 'ERROR', headers: { message: 'no CONNECT frame' } }]);
  t.equal(server.endpoint.sessionCount(), 0);
});

void t.test('a throwing currentMetricsJson is logged, not fatal', async (t) => {
  const server = await startServer({
    currentMetricsJson: () => {
      throw new Error('actor gone');
    },
  });
  t.teardown(() => server.stop());
  const c = await connectRaw(server.url());
  c.send('SUBSCRIBE\nid:1\ndestination:/topic/metrics\nreceipt:r\n\n\0');
  await c.waitFrames(2);
  t.equal(c.frames[1]?.command, 'RECEIPT');
  t.match(server.logs, [{ level: 'warn', fields: { err: /actor gone/ } }]);
  server.endpoint.publish('/topic/metrics', '{"ok":1}');
  await c.waitFrames(3);
  t.equal(c.frames[2]?.body, '{"ok":1}');
  c.ws.close();
});

/** The HTTP status a refused WebSocket upgrade is answered with. */
function refusedStatus(url: string): Promise<number> {
  const late = new WebSocket(url, ['v12.stomp']);
  return new Promise<number>((resolve) => {
    late.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      late.terminate();
    });
    late.on('error', () => {});
  });
}

void t.test('closeAll ends every session with 1001 and refuses new upgrades', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const a = await connectRaw(server.url());
  const b = new RawClient(server.url());
  await b.opened;
  server.endpoint.closeAll();
  t.equal((await a.closed).code, 1001);
  t.equal((await b.closed).code, 1001);
  t.equal(server.endpoint.sessionCount(), 0);
  t.equal(await refusedStatus(server.url()), 503);
});

void t.test('past MAX_CONNECTIONS an upgrade is refused 503; a close frees a place', async (t) => {
  const connections = createConnectionLimit(2);
  const server = await startServer({ connections });
  t.teardown(() => server.stop());
  const a = await connectRaw(server.url());
  const b = await connectRaw(server.url());
  t.equal(connections.inUse(), 2, 'each open socket holds a place');
  t.equal(await refusedStatus(server.url()), 503);
  t.equal(server.endpoint.sessionCount(), 2);
  a.ws.close();
  await a.closed;
  await until(() => connections.inUse() === 1, 'the closed socket gives its place back');
  const c = await connectRaw(server.url());
  t.equal(c.frames[0]?.command, 'CONNECTED', 'a new client gets the free place');
  b.ws.close();
  c.ws.close();
  await until(() => connections.inUse() === 0, 'every place is free again');
});

void t.test('MAX_CONNECTIONS reached when a CONNECT is accepted: ERROR, then 1013', async (t) => {
  // As when HTTP requests took the last place while the socket was waiting for its CONNECT.
  const connections = { ...createConnectionLimit(10), tryTake: () => false };
  const server = await startServer({ connections });
  t.teardown(() => server.stop());
  const c = new RawClient(server.url());
  await c.opened;
  c.send('CONNECT\naccept-version:1.2\nheart-beat:0,0\n\n\0');
  t.equal((await c.closed).code, 1013);
  t.equal(c.frames[0]?.command, 'ERROR');
  t.match(c.frames[0]?.headers.message, /too many connections/);
  t.equal(server.endpoint.sessionCount(), 0);
});

void t.test('options are validated', (t) => {
  const base = {
    serverVersion: '0',
    log: { info: () => {}, warn: () => {} },
    currentMetricsJson: () => null,
  };
  const app = nativeUws().App();
  t.throws(() => attachStomp(app, { ...base, softBufferBytes: 10, hardBufferBytes: 5 }), {
    name: 'TypeError',
    message: /softBufferBytes/,
  });
  t.throws(() => attachStomp(app, { ...base, maxFrameBytes: 0 }), { message: /maxFrameBytes/ });
  t.throws(() => attachStomp(app, { ...base, heartbeatSendMs: -1 }), {
    message: /heartbeatSendMs/,
  });
  t.throws(() => attachStomp(app, { ...base, paths: [] }), { message: /paths/ });
  t.end();
});
