// No key, no slot (issue 29): 2 x MAX_CONNECTIONS silent WebSockets from several addresses (other
// loopback addresses stand for other hosts) take the unauthenticated pool only; keyed ingest and
// GETs still answer 2xx, an authenticated STOMP client still connects, and the silent sockets
// beyond the pool are refused with a status and a message saying why.
import t from 'tap';
import WebSocket from 'ws';
import { RawClient, until } from '../stomp/helpers.ts';
import { TEST_ADMIN_KEY } from '../support/keys.ts';
import { readAck, readEvent } from '../support/events.ts';
import { startTestService } from '../support/service.ts';

const MAX_CONNECTIONS = 20;
const svc = await startTestService(t, {
  MAX_CONNECTIONS: String(MAX_CONNECTIONS),
  MAX_UNAUTH_SOCKETS: '16',
  MAX_UNAUTH_SOCKETS_PER_IP: '6',
});
const wsUrl = `ws://127.0.0.1:${svc.service.port}/ws`;

type Outcome = { socket: WebSocket; closed: Promise<string> } | { status: number; body: string };

function openSilent(localAddress: string): Promise<Outcome> {
  const ws = new WebSocket(wsUrl, ['v12.stomp'], { localAddress });
  return new Promise((resolve, reject) => {
    const closed = new Promise<string>((done) =>
      ws.once('close', (code, reason) => done(`${code} ${reason.toString()}`)),
    );
    ws.once('open', () => resolve({ socket: ws, closed }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once('error', reject);
  });
}

/** connectRaw (CONNECT with the admin key) from another loopback address. */
async function connectRawFrom(localAddress: string): Promise<RawClient> {
  const client = new RawClient(wsUrl, ['v12.stomp'], { localAddress });
  await client.opened;
  client.send(`CONNECT\naccept-version:1.2\nheart-beat:0,0\npasscode:${TEST_ADMIN_KEY}\n\n\0`);
  await client.waitFrames(1);
  return client;
}

t.test('silent sockets starve neither keyed requests nor authenticated sessions', async (t) => {
  const outcomes: Outcome[] = [];
  // 2 x MAX_CONNECTIONS, eight from each of five addresses, opened one after another.
  for (let i = 0; i < 2 * MAX_CONNECTIONS; i++) {
    outcomes.push(await openSilent(`127.0.0.${1 + Math.floor(i / 8)}`));
  }
  const open = outcomes.flatMap((o) => ('socket' in o ? [o.socket] : []));
  t.teardown(() => open.forEach((ws) => ws.terminate()));
  const madeRoom = outcomes.flatMap((o) => ('socket' in o ? [o.closed] : []));
  const stillOpen = (): number => open.filter((ws) => ws.readyState === WebSocket.OPEN).length;
  await until(() => stillOpen() === 16, 'the pool holds MAX_UNAUTH_SOCKETS');
  const refused = outcomes.flatMap((o) => ('status' in o ? [o] : []));
  t.ok(
    refused.some((r) => r.status === 429 && /from this address/.test(r.body)),
    'past the per-address bound: 429',
  );
  t.ok(
    refused.some((r) => r.status === 503 && /without CONNECT/.test(r.body)),
    'past the pool, when no address holds more than the newcomer: 503',
  );
  const evicted = open.length - 16;
  t.ok(evicted > 0, 'a busy address gave its oldest socket to a quieter one');
  for (const [i, ws] of open.entries()) {
    if (ws.readyState !== WebSocket.OPEN) t.match(await madeRoom[i], /^1013 too many sockets/);
  }
  t.equal(refused.length + open.length, 2 * MAX_CONNECTIONS, 'every socket is accounted for');

  // Every silent socket is still open: keyed requests get their answers.
  const posted = await svc.request('/api/v1/events', {
    json: { eventType: 'silent.sockets', source: 'test' },
  });
  t.equal(posted.status, 202, 'keyed ingest');
  const { eventId } = await readAck(posted);
  const got = await svc.request(`/api/v1/events/${eventId}`);
  t.equal(got.status, 200, 'keyed GET');
  t.equal((await readEvent(got)).eventType, 'silent.sockets');
  const list = await svc.request('/api/v1/events?eventType=silent.sockets');
  t.equal(list.status, 200, 'keyed list');

  // The pool is full of silent sockets; a client from a host that holds none takes the place of
  // the oldest socket of the busiest address, and its CONNECT moves it to MAX_CONNECTIONS.
  const client = await connectRawFrom('127.0.0.9');
  t.equal(client.frames[0]?.command, 'CONNECTED', 'an authenticated STOMP client connects');
  await until(() => stillOpen() === 15, 'one more made room');
  t.equal(stillOpen(), 15, 'one silent socket made room; the others are still open');
  client.ws.close();
});
