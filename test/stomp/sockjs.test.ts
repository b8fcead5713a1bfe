// The SockJS protocol on the wire (src/stomp/sockjs/), against a real uWS app: /info, the framing
// of each transport, heart-beats, the session deadline, and the answers to bad requests.
import { request } from 'node:http';
import t from 'tap';
import WebSocket from 'ws';
import { closeFrame, messageFrame, parseClientPayload } from '../../src/stomp/sockjs/framing.ts';
import { startServer, until } from './helpers.ts';

const server = await startServer({ sockJsHeartbeatMs: 100, sockJsDisconnectMs: 5000 });
t.teardown(() => server.stop());
const base = `http://127.0.0.1:${server.port}/ws`;
const post = (path: string, body?: string): Promise<Response> =>
  fetch(base + path, { method: 'POST', ...(body === undefined ? {} : { body }) });

void t.test('framing: escapes what the protocol requires, reads arrays and strings', (t) => {
  t.equal(messageFrame(['a\u2028b\0']), 'a["a\\u2028b\\u0000"]');
  t.equal(closeFrame(3000, 'Go away!'), 'c[3000,"Go away!"]');
  t.same(parseClientPayload('["x","y"]'), { ok: true, messages: ['x', 'y'] });
  t.same(parseClientPayload('"x"'), { ok: true, messages: ['x'] });
  t.same(parseClientPayload('[1]'), { ok: false, reason: 'Expected a JSON array of strings.' });
  t.same(parseClientPayload('[x'), { ok: false, reason: 'Broken JSON encoding.' });
  t.end();
});

void t.test('GET /ws/info: JSON, not cached, a new entropy each time', async (t) => {
  const [a, b] = await Promise.all([fetch(`${base}/info`), fetch(`${base}/info`)]);
  t.equal(a.status, 200);
  t.match(a.headers.get('content-type'), /^application\/json/);
  t.match(a.headers.get('cache-control'), /no-store/);
  const [first, second] = (await Promise.all([a.json(), b.json()])) as Array<{ entropy: number }>;
  t.match(first, { websocket: true, cookie_needed: false, origins: ['*:*'], entropy: Number });
  t.not(first?.entropy, second?.entropy);
});

void t.test('websocket transport: o, a[...] for STOMP, h, and c on broken framing', async (t) => {
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws/000/wsframes/websocket`);
  const frames: string[] = [];
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  ws.on('message', (data: Buffer) => frames.push(data.toString()));
  await until(() => frames.length >= 1, 'the open frame');
  t.equal(frames[0], 'o');
  ws.send(JSON.stringify(['CONNECT\naccept-version:1.2\nheart-beat:0,0\n\n\0']));
  await until(() => frames.some((f) => f.startsWith('a[')), 'CONNECTED');
  const connected = JSON.parse(
    frames.find((f) => f.startsWith('a['))?.slice(1) ?? '[]',
  ) as string[];
  t.match(connected[0], /^CONNECTED\n/);
  await until(() => frames.includes('h'), 'a heart-beat after sockJsHeartbeatMs of silence');
  ws.send('[not json');
  t.equal(await closed, 3000);
  t.equal(frames.at(-1), 'c[3000,"Broken framing."]');
});

/** Reads an xhr_streaming response until `done` says it has enough, then drops it. */
function stream(session: string, done: (body: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/000/${session}/xhr_streaming`, { method: 'POST' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (done(body)) {
          req.destroy();
          resolve(body);
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
}

void t.test('xhr_streaming: the prelude, o, then h while idle', async (t) => {
  const body = await stream('stream01', (b) => b.endsWith('o\nh\n'));
  t.equal(body, `${'h'.repeat(2048)}\no\nh\n`);
});

void t.test('xhr polling: o, a[...], one receiver at a time, and the deadline', async (t) => {
  // Heart-beats off for this one: a held poll must wait for data, not end with `h`.
  const quiet = await startServer({ sockJsHeartbeatMs: 60_000, sockJsDisconnectMs: 2000 });
  t.teardown(() => quiet.stop());
  const at = (path: string, body?: string): Promise<Response> =>
    fetch(`http://127.0.0.1:${quiet.port}/ws/000${path}`, {
      method: 'POST',
      ...(body === undefined ? {} : { body }),
    });
  t.equal(await (await at('/poll0001/xhr')).text(), 'o\n');
  const connect = await at('/poll0001/xhr_send', JSON.stringify(['CONNECT\n\n\0']));
  t.equal(connect.status, 204);
  t.match(await (await at('/poll0001/xhr')).text(), /^a\["CONNECTED\\n/);

  const polls = [at('/poll0001/xhr'), at('/poll0001/xhr')].map((p) => p.then((r) => r.text()));
  const first = await Promise.race(polls);
  t.equal(first, 'c[2010,"Another connection still open"]\n', 'the second receiver is refused');
  await at('/poll0001/xhr_send', JSON.stringify(['DISCONNECT\nreceipt:bye\n\n\0']));
  const rest = (await Promise.all(polls)).find((text) => text !== first) ?? '';
  t.match(rest, /^a\["RECEIPT\\nreceipt-id:bye/, 'the first receiver stays, and gets the answer');
  t.match(rest, /\nc\[1000,"DISCONNECT"\]\n$/);

  t.equal(await (await at('/idle0001/xhr')).text(), 'o\n');
  await until(() => quiet.endpoint.sessionCount() === 0, 'the end of a session nobody polls');
  t.equal((await at('/idle0001/xhr_send', '["x"]')).status, 404, 'it takes no more messages');
});

void t.test('xhr_send: unknown session 404, empty or broken body 400, all in JSON', async (t) => {
  const unknown = await post('/000/nosuchid/xhr_send', '["x"]');
  t.equal(unknown.status, 404);
  t.match(await unknown.json(), { status: 'error', code: 'NOT_FOUND' });
  t.equal(await (await post('/000/send0001/xhr')).text(), 'o\n');
  for (const [body, reason] of [
    ['', /Payload expected/],
    ['[broken', /Broken JSON/],
    ['{"a":1}', /array of strings/],
  ] as const) {
    const res = await post('/000/send0001/xhr_send', body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.match(await res.json(), { code: 'MALFORMED_JSON', message: reason });
  }
  t.equal((await post('/000/send0001/xhr_send', '[]')).status, 204, 'an empty array is nothing');
  const dotted = await post('/000/a.b/xhr');
  t.equal(dotted.status, 404, 'a session id with a dot');
});
