// The request adapter on a real uWS app with routes made only for these tests: a handler that
// throws or rejects is a 500 with the generic body (never an unhandled rejection), and
// MAX_CONNECTIONS turns requests away while every place is held by a pending one.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t from 'tap';
import { createConnectionLimit } from '../../src/http/connection-limit.ts';
import type { Reply } from '../../src/http/reply.ts';
import type { Route } from '../../src/http/route-types.ts';
import { buildApp, listen } from '../../src/http/server.ts';
import { originPolicy } from '../../src/http/origins.ts';
import { createRequestGate } from '../../src/request-gate.ts';

const route = (path: string, handle: Route['handle'], body: Route['body'] = 'none'): Route => ({
  method: body === 'none' ? 'GET' : 'POST',
  path,
  scope: 'public',
  body,
  doc: { summary: path, responses: {} },
  handle,
});

/** A promise and the function that resolves it: a reply the test releases itself. */
function held(): { reply: Promise<Reply>; release: () => void } {
  let release = (): void => {};
  const reply = new Promise<Reply>((resolve) => {
    release = () => resolve({ status: 200, body: { held: 'released' } });
  });
  return { reply, release };
}

async function start(
  t: { teardown(fn: () => void): void },
  routes: Route[],
  maxConnections = 1000,
) {
  const lines: string[] = [];
  const log = pino(
    { level: 'error' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    }),
  );
  const connections = createConnectionLimit(maxConnections);
  const app = buildApp(routes, {
    maxBodyBytes: 1024 * 1024,
    keys: null,
    ingestStages: null,
    origins: originPolicy(''),
    log,
    gate: createRequestGate(),
    connections,
  });
  const server = await listen(app, '127.0.0.1', 0);
  // App.close, in the runtime but missing from this fork's types, closes the listener and every
  // socket (fetch keeps its connections alive).
  t.teardown(() => (app as typeof app & { close(): void }).close());
  const base = `http://127.0.0.1:${server.port}`;
  return { lines, connections, url: (path: string) => `${base}${path}` };
}

t.test('a handler that throws or rejects answers 500 INTERNAL; the server goes on', async (t) => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  t.teardown(() => process.off('unhandledRejection', onUnhandled));
  const { lines, url } = await start(t, [
    route('/throws', () => {
      throw new TypeError('secret detail of a sync throw');
    }),
    route('/rejects', async () => {
      await Promise.resolve();
      throw new RangeError('secret detail of a rejection');
    }),
    route(
      '/rejects-with-body',
      () => Promise.reject(new Error('secret detail after a body')),
      'json',
    ),
    route('/fine', () => ({ status: 200, body: { ok: true } })),
  ]);
  const requests: [string, RequestInit?][] = [
    ['/throws'],
    ['/rejects'],
    [
      '/rejects-with-body',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
    ],
  ];
  for (const [path, init] of requests) {
    const res = await fetch(url(path), init);
    t.equal(res.status, 500, `${path}: 500`);
    const text = await res.text();
    t.same(
      JSON.parse(text),
      { status: 'error', code: 'INTERNAL', message: 'Internal server error' },
      `${path}: the generic body`,
    );
    t.notMatch(text, /secret/, `${path}: no detail leaks`);
    const after = await fetch(url('/fine'));
    t.equal(after.status, 200, `after ${path} the server still answers`);
    t.same(await after.json(), { ok: true });
  }
  t.equal(lines.length, 3, 'each error is logged');
  t.ok(
    lines.every((line) => line.includes('secret detail')),
    'with its detail, in the log',
  );
  t.same(unhandled, [], 'no unhandled rejection');
});

t.test('past MAX_CONNECTIONS a request is answered 503 until a place is free', async (t) => {
  const first = held();
  const { connections, url } = await start(
    t,
    [route('/held', () => first.reply), route('/fine', () => ({ status: 200, body: {} }))],
    1,
  );
  const pending = fetch(url('/held'));
  while (connections.inUse() === 0) await new Promise((resolve) => setImmediate(resolve));
  const refused = await fetch(url('/fine'));
  t.equal(refused.status, 503);
  t.equal(refused.headers.get('retry-after'), '1');
  t.equal(refused.headers.get('connection'), 'close');
  t.match(await refused.json(), { status: 'error', code: 'TOO_MANY_CONNECTIONS' });
  first.release();
  const answered = await pending;
  t.same(await answered.json(), { held: 'released' });
  t.equal(connections.inUse(), 0, 'the answered request gave its place back');
  const after = await fetch(url('/fine'));
  t.equal(after.status, 200, 'a new request is served again');
  t.equal(connections.inUse(), 0, 'an answer sent at once holds no place afterwards');
});
