// Keys on the WebSocket: a CONNECT without a read key is an ERROR and a close; a revoked key's
// live session is ended; a page from a foreign Origin cannot open /ws. And CORS answers only the
// listed origins.
import t from 'tap';
import WebSocket from 'ws';
import { connectRaw, RawClient } from '../stomp/helpers.ts';
import { expectError } from '../support/events.ts';
import { startTestService } from '../support/service.ts';

const LISTED = 'https://dash.example.com';
const svc = await startTestService(t, { VIGIL_ALLOWED_ORIGINS: `${LISTED}/` });
const wsUrl = `ws://127.0.0.1:${svc.service.port}/ws`;

async function keyOf(scope: string): Promise<{ id: number; key: string }> {
  const res = await svc.request('/api/v1/keys', { json: { name: `${scope} ws`, scope } });
  return (await res.json()) as { id: number; key: string };
}

/** Opens a socket, sends CONNECT with `headers`, and returns the first frame and the client. */
async function connectWith(headers: string) {
  const client = new RawClient(wsUrl);
  await client.opened;
  client.send(`CONNECT\naccept-version:1.2\nheart-beat:0,0\n${headers}\n\0`);
  const [frame] = await client.waitFrames(1);
  return { frame, client };
}

t.test('CONNECT needs a key that grants read', async (t) => {
  const none = await connectWith('');
  t.equal(none.frame?.command, 'ERROR');
  t.match(none.frame?.body, /passcode/);
  t.equal((await none.client.closed).code, 1008, 'closed: policy violation');

  const ingest = await keyOf('ingest');
  const wrong = await connectWith(`passcode:${ingest.key}\n`);
  t.equal(wrong.frame?.command, 'ERROR');
  t.match(wrong.frame?.body, /scope 'read'/);
  t.equal((await wrong.client.closed).code, 1008);

  const read = await keyOf('read');
  const viaHeader = await connectWith(`Authorization:Bearer ${read.key}\n`);
  t.equal(viaHeader.frame?.command, 'CONNECTED', 'an Authorization header works too');
  viaHeader.client.ws.close();
});

t.test("a revoked key's live session is ended", async (t) => {
  const read = await keyOf('read');
  const client = await connectRaw(wsUrl, undefined, read.key);
  const del = await svc.request(`/api/v1/keys/${read.id}`, { method: 'DELETE' });
  t.equal(del.status, 204);
  const closed = await client.closed;
  t.equal(closed.code, 1008);
  t.equal(client.frames.at(-1)?.command, 'ERROR');
  t.match(client.frames.at(-1)?.headers.message, /revoked/);
});

function upgradeStatus(origin: string | undefined): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(wsUrl, ['v12.stomp'], origin === undefined ? {} : { origin });
    ws.once('open', () => {
      ws.close();
      resolve(101);
    });
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('error', () => {});
  });
}

t.test('/ws refuses a page from a foreign Origin', async (t) => {
  t.equal(await upgradeStatus('https://evil.example'), 403, 'foreign origin');
  t.equal(await upgradeStatus(LISTED), 101, 'listed origin');
  t.equal(await upgradeStatus(svc.base), 101, "the service's own origin");
  t.equal(await upgradeStatus(undefined), 101, 'no Origin: not a browser');
});

t.test('CORS answers the listed origins only', async (t) => {
  const preflight = (origin: string) =>
    fetch(`${svc.base}/api/v1/metrics`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
  const allowed = await preflight(LISTED);
  t.equal(allowed.status, 204);
  t.equal(allowed.headers.get('access-control-allow-origin'), LISTED);
  t.match(allowed.headers.get('access-control-allow-headers'), /Authorization/);
  await expectError(t, await preflight('https://evil.example'), 403, 'FORBIDDEN');

  const read = await svc.request('/api/v1/metrics', { headers: { origin: LISTED } });
  t.equal(read.headers.get('access-control-allow-origin'), LISTED, 'a listed page may read');
  await read.body?.cancel();
  const foreign = await svc.request('/api/v1/metrics', {
    headers: { origin: 'https://evil.example' },
  });
  t.equal(foreign.headers.get('access-control-allow-origin'), null, 'a foreign page may not');
  await foreign.body?.cancel();
});
