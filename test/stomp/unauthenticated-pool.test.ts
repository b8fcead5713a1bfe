// Sockets without an accepted CONNECT have a pool of their own, bounded in all and per remote
// address, outside MAX_CONNECTIONS; an accepted CONNECT moves the socket to MAX_CONNECTIONS.
// Other loopback addresses (127.0.0.2, ...) stand for other hosts.
import t from 'tap';
import WebSocket from 'ws';
import { createConnectionLimit } from '../../src/http/connection-limit.ts';
import { addressKey, createUnauthenticatedPool } from '../../src/stomp/unauthenticated-pool.ts';
import { RawClient, startServer, until } from './helpers.ts';

interface Refusal {
  status: number;
  retryAfter: string | undefined;
  body: string;
}

/** An upgrade from `localAddress`: the refusal it gets, or the open socket. */
function open(url: string, localAddress = '127.0.0.1'): Promise<WebSocket | Refusal> {
  const ws = new WebSocket(url, ['v12.stomp'], { localAddress });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => {
        const retryAfter = res.headers['retry-after'];
        resolve({ status: res.statusCode ?? 0, retryAfter, body });
        ws.terminate();
      });
    });
    ws.once('error', (err) => reject(err));
  });
}

async function openAll(url: string, count: number, localAddress?: string): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  for (let i = 0; i < count; i++) {
    const ws = await open(url, localAddress);
    if (!(ws instanceof WebSocket)) throw new Error(`socket ${i} refused ${ws.status}`);
    sockets.push(ws);
  }
  return sockets;
}

t.test('addresses are counted per IPv4 address and per IPv6 /64', (t) => {
  t.equal(addressKey('127.0.0.2'), '127.0.0.2');
  t.equal(addressKey('::ffff:127.0.0.2'), '127.0.0.2', 'IPv4-mapped is the IPv4 address');
  t.equal(addressKey('0000:0000:0000:0000:0000:ffff:7f00:0002'), '127.0.0.2', 'as uWS gives it');
  t.equal(addressKey('2001:db8:1:2::1'), addressKey('2001:db8:1:2:ffff:1:2:3'), 'same /64');
  t.not(addressKey('2001:db8:1:2::1'), addressKey('2001:db8:1:3::1'), 'another /64');
  t.equal(addressKey('2001:DB8:0001:0002::'), '2001:db8:1:2::/64');
  t.end();
});

t.test('the pool bounds sockets per address and in all; closing gives places back', async (t) => {
  const connections = createConnectionLimit(2);
  const unauthenticated = createUnauthenticatedPool({ max: 4, maxPerAddress: 3 });
  const server = await startServer({ connections, unauthenticated });
  t.teardown(() => server.stop());

  const first = await openAll(server.url(), 3, '127.0.0.1');
  const refused = await open(server.url(), '127.0.0.1');
  t.match(refused, { status: 429, retryAfter: '1', body: /from this address/ }, 'per address');
  t.equal(connections.inUse(), 0, 'silent sockets hold no MAX_CONNECTIONS place');
  const [second] = await openAll(server.url(), 1, '127.0.0.2');
  t.equal(unauthenticated.inUse(), 4, 'the pool is full');

  // Full: a newcomer takes the place of the oldest socket of the busiest address.
  const [third] = await openAll(server.url(), 1, '127.0.0.3');
  const evicted = await new Promise<{ code: number; reason: string }>((resolve) =>
    first[0]?.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  t.match(evicted, { code: 1013, reason: /without CONNECT/ }, 'the oldest of 127.0.0.1 is closed');
  t.equal(first[1]?.readyState, WebSocket.OPEN, 'the others stay');
  const [fourth] = await openAll(server.url(), 1, '127.0.0.4');
  t.equal(unauthenticated.held('127.0.0.1'), 1, 'again one of 127.0.0.1 made room');

  // Every address holds one place: nobody is evicted, the newcomer is refused.
  const full = await open(server.url(), '127.0.0.5');
  t.match(full, { status: 503, retryAfter: '1', body: /without CONNECT/ }, 'the pool is full');
  t.equal(unauthenticated.inUse(), 4);

  second?.close();
  await until(() => unauthenticated.inUse() === 3, 'a closed socket gives its place back');
  const again = await open(server.url(), '127.0.0.5');
  t.ok(again instanceof WebSocket, 'a place is free again');
  for (const ws of [...first, second, third, fourth, again])
    if (ws instanceof WebSocket) ws.close();
  await until(() => unauthenticated.inUse() === 0, 'every place is free');
});

t.test('an accepted CONNECT moves the socket to MAX_CONNECTIONS', async (t) => {
  const connections = createConnectionLimit(1);
  const unauthenticated = createUnauthenticatedPool({ max: 2, maxPerAddress: 2 });
  const server = await startServer({ connections, unauthenticated });
  t.teardown(() => server.stop());

  const a = new RawClient(server.url());
  const b = new RawClient(server.url());
  await Promise.all([a.opened, b.opened]);
  t.equal(unauthenticated.inUse(), 2);
  a.send('CONNECT\naccept-version:1.2\nheart-beat:0,0\n\n\0');
  await a.waitFrames(1);
  t.equal(a.frames[0]?.command, 'CONNECTED');
  t.equal(unauthenticated.inUse(), 1, 'the pool place is given back');
  t.equal(connections.inUse(), 1, 'a MAX_CONNECTIONS place is held');

  b.send('CONNECT\naccept-version:1.2\nheart-beat:0,0\n\n\0');
  t.equal((await b.closed).code, 1013, 'no MAX_CONNECTIONS place: 1013');
  t.match(b.frames[0], { command: 'ERROR', headers: { message: /too many connections/ } });
  t.equal(unauthenticated.inUse(), 0);
  a.ws.close();
  await until(() => connections.inUse() === 0, 'the session gives its place back');
});

t.test('a socket that never sends CONNECT leaves the pool at the deadline', async (t) => {
  let now = 0;
  const unauthenticated = createUnauthenticatedPool({ max: 1, maxPerAddress: 1 });
  const server = await startServer({ unauthenticated, connectTimeoutMs: 1000, now: () => now });
  t.teardown(() => server.stop());
  const silent = new RawClient(server.url());
  await silent.opened;
  now = 1001;
  await silent.closed;
  await until(() => unauthenticated.inUse() === 0, 'the place is free');
});
