// SockJS against the real service (issue 32): the real sockjs-client with each transport forced
// once (websocket, xhr-streaming, xhr-polling) carrying @stomp/stompjs, which gets the metrics at
// SUBSCRIBE, a /topic/metrics push and the answer to SEND /app/subscribe. Then what a hostile or
// careless client meets: a wrong passcode, an oversize xhr_send, too many sessions without CONNECT
// (refused as raw WebSockets are, in the same count), and CORS on every 404 and 405.
import t from 'tap';
import WebSocket from 'ws';
import type { Client, IMessage } from '@stomp/stompjs';
import { REAL_TIMERS } from '../../src/timers.ts';
import { startTestService } from '../support/service.ts';
import { connectSockJsStomp, SOCKJS_TRANSPORTS } from '../stomp/sockjs-client.ts';
import { until } from '../stomp/helpers.ts';
import { parseSnapshot } from './helpers.ts';

const DASHBOARD = 'http://dashboard.test:3000';
const PER_ADDRESS = 3;

/** The broadcast timer, held by the test so that each push is one the test fired. */
const broadcast = { held: false, fire: (): void => {} };
const svc = await startTestService(
  t,
  {
    METRICS_BROADCAST_MS: '200',
    METRICS_REFRESH_MS: '50',
    VIGIL_ALLOWED_ORIGINS: DASHBOARD,
    MAX_UNAUTH_SOCKETS_PER_IP: String(PER_ADDRESS),
  },
  {
    hooks: {
      broadcastTimers: {
        setInterval(tick, ms) {
          broadcast.fire = tick;
          return REAL_TIMERS.setInterval(() => {
            if (!broadcast.held) tick();
          }, ms);
        },
        clearInterval: (handle) => REAL_TIMERS.clearInterval(handle),
      },
    },
  },
);
const sockJsBase = `${svc.base}/ws`;

/** Subscribes and resolves once the SUBSCRIBE's RECEIPT came (the snapshot comes before it). */
async function subscribeMetrics(client: Client, messages: IMessage[]): Promise<void> {
  const received = new Promise<void>((resolve) => client.watchForReceipt('sub', () => resolve()));
  client.subscribe('/topic/metrics', (m) => messages.push(m), { id: 'm', receipt: 'sub' });
  await received;
}

/** SEND with a receipt; resolves once the RECEIPT came (frames arrive in order). */
async function sendWithReceipt(
  client: Client,
  destination: string,
  receipt: string,
): Promise<void> {
  const received = new Promise<void>((resolve) => client.watchForReceipt(receipt, () => resolve()));
  client.publish({ destination, body: '{}', headers: { receipt } });
  await received;
}

for (const transport of SOCKJS_TRANSPORTS) {
  void t.test(
    `sockjs-client, ${transport} forced: STOMP with a push and /app/subscribe`,
    async (t) => {
      const {
        client,
        connected,
        transport: used,
      } = await connectSockJsStomp(sockJsBase, transport);
      t.teardown(() => client.deactivate({ force: true }));
      t.equal(used, transport, 'sockjs-client is on the forced transport');
      t.match(connected.headers, { version: '1.2', server: /^vigil\// });

      broadcast.held = true;
      t.teardown(() => {
        broadcast.held = false;
      });
      const messages: IMessage[] = [];
      await subscribeMetrics(client, messages);
      t.equal(messages.length, 1, 'the snapshot at SUBSCRIBE');

      broadcast.fire();
      await until(() => messages.length === 2, 'the /topic/metrics push');

      await sendWithReceipt(client, '/app/subscribe', 'app-subscribe');
      t.equal(messages.length, 3, '/app/subscribe answered with the snapshot, before its RECEIPT');
      await sendWithReceipt(client, '/app/anything-else', 'app-other');
      t.equal(messages.length, 3, 'another /app/ destination is ignored');
      for (const m of messages) {
        t.match(m.headers, { destination: '/topic/metrics', subscription: 'm' });
        t.doesNotThrow(() => parseSnapshot(m.body), 'the spec 2.10 snapshot');
      }
      t.ok(client.connected, 'the session stays open');

      const error = new Promise<string>((resolve) => {
        client.onStompError = (frame) => resolve(frame.headers.message ?? '');
      });
      client.publish({ destination: '/topic/metrics', body: '{}' });
      t.equal(await error, 'destination is read-only', 'any other SEND keeps its ERROR');
    },
  );
}

void t.test('a wrong passcode is refused over SockJS', async (t) => {
  for (const transport of SOCKJS_TRANSPORTS) {
    await t.rejects(
      connectSockJsStomp(sockJsBase, transport, 'vigil-not-a-key'),
      /ERROR authentication failed/,
      transport,
    );
  }
});

/** Opens an xhr-polling session by hand: the answer to its first poll. */
async function openXhrSession(session: string, origin?: string): Promise<Response> {
  return fetch(`${sockJsBase}/123/${session}/xhr`, {
    method: 'POST',
    headers: origin === undefined ? {} : { origin },
  });
}

void t.test(
  'an oversize xhr_send is refused, and ends the session as on a WebSocket',
  async (t) => {
    const opened = await openXhrSession('bigsend1');
    t.equal(await opened.text(), 'o\n');
    const frame = `SEND\ndestination:/app/x\n\n${'x'.repeat(300 * 1024)}\0`;
    const res = await fetch(`${sockJsBase}/123/bigsend1/xhr_send`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify([frame]),
    });
    t.equal(res.status, 413);
    t.match(await res.json(), { status: 'error', code: 'PAYLOAD_TOO_LARGE' });
    const next = await fetch(`${sockJsBase}/123/bigsend1/xhr`, { method: 'POST' });
    t.equal(await next.text(), 'c[1009,"message too big"]\n');
    const bad = await fetch(`${sockJsBase}/123/bigsend1/xhr_send`, {
      method: 'POST',
      body: '["x"]',
    });
    t.equal(bad.status, 404, 'the ended session takes no more messages');
    t.match(await bad.json(), { code: 'NOT_FOUND' });
  },
);

void t.test('too many SockJS sessions are refused like raw WebSockets, in one count', async (t) => {
  const sockets: WebSocket[] = [];
  t.teardown(() => sockets.forEach((s) => s.terminate()));
  for (let i = 0; i < PER_ADDRESS; i++) {
    const ws = new WebSocket(`ws://127.0.0.1:${svc.service.port}/ws/000/hold${i}/websocket`);
    sockets.push(ws);
    const first = await new Promise<string>((resolve, reject) => {
      ws.once('message', (data: Buffer) => resolve(data.toString()));
      ws.once('error', reject);
    });
    t.equal(first, 'o', `SockJS websocket session ${i} opens without CONNECT`);
  }
  const xhr = await openXhrSession('onetoomany');
  t.equal(xhr.status, 429, 'an xhr session is refused');
  t.match(await xhr.json(), { status: 'error', code: 'RATE_LIMITED' });
  for (const path of ['/ws', '/ws/000/onetoomany/websocket']) {
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${svc.service.port}${path}`);
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.once('open', () => {
        ws.terminate();
        resolve(101);
      });
    });
    t.equal(status, 429, `a WebSocket on ${path} is refused`);
  }
  const closing = sockets.map((s) => new Promise((resolve) => s.once('close', resolve)));
  sockets.forEach((s) => s.close());
  await Promise.all(closing);
  const again = await openXhrSession('afterclose');
  t.equal(await again.text(), 'o\n', 'the places are back once the sockets closed');
});

void t.test('/ws/info and the xhr transports answer a listed origin with CORS', async (t) => {
  const info = await fetch(`${sockJsBase}/info`, { headers: { origin: DASHBOARD } });
  t.equal(info.status, 200);
  t.match(await info.json(), { websocket: true, cookie_needed: false, origins: ['*:*'] });
  t.equal(info.headers.get('access-control-allow-origin'), DASHBOARD);
  t.equal(info.headers.get('access-control-allow-credentials'), 'true');
  const poll = await openXhrSession('corssess', DASHBOARD);
  t.equal(poll.headers.get('access-control-allow-origin'), DASHBOARD);
  t.equal(await poll.text(), 'o\n');
  const foreign = await openXhrSession('foreign1', 'http://evil.test');
  t.equal(foreign.status, 403, 'an origin neither listed nor the service own is refused');
  t.equal(foreign.headers.get('access-control-allow-origin'), null);
});

void t.test('every 404 and 405 carries the CORS headers of a listed origin', async (t) => {
  const cases: Array<[string, string, number]> = [
    ['GET', '/no/such/route', 404],
    ['POST', '/ws/000/abcdefgh/eventsource', 404],
    ['GET', '/assets/no-such-asset.js', 404],
    ['POST', '/ws/000/nosession/xhr_send', 404],
    ['PATCH', '/api/v1/events', 405],
    ['DELETE', '/api/v1/metrics', 405],
  ];
  for (const [method, path, status] of cases) {
    const res = await fetch(svc.base + path, {
      method,
      headers: { origin: DASHBOARD },
      ...(method === 'POST' ? { body: '[]' } : {}),
    });
    t.equal(res.status, status, `${method} ${path}`);
    t.equal(res.headers.get('access-control-allow-origin'), DASHBOARD, `${method} ${path}: CORS`);
    t.match(await res.json(), { status: 'error' }, `${method} ${path}: a JSON body`);
  }
});
