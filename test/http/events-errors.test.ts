// Protocol errors of the event API (DESIGN 2, 7): 405 with Allow, 404 for unknown paths, 413,
// 415, malformed JSON, invalid UTF-8, empty bodies and bodies that are not objects. Every answer
// is the JSON error body, and nothing is ever stored.
import { request as httpRequest } from 'node:http';
import t from 'tap';
import { expectError, postRaw, stored, type Assert } from '../support/events.ts';
import { keyHeaders } from '../support/keys.ts';
import { startTestService } from '../support/service.ts';

const MAX_BODY_BYTES = 2048;
const svc = await startTestService(t, { MAX_BODY_BYTES: String(MAX_BODY_BYTES) });
const INGEST = ['/api/v1/events', '/api/v1/events/batch'] as const;

const nothingStored = async (t: Assert): Promise<void> => {
  t.same(await stored(svc.db), { rows: 0, counted: 0 }, 'nothing stored');
};

void t.test('wrong method on a known path: 405 with Allow', async (t) => {
  const cases: readonly [string, string, readonly string[]][] = [
    ['DELETE', '/api/v1/events', ['GET', 'POST']],
    ['PUT', '/api/v1/events', ['GET', 'POST']],
    ['PATCH', '/api/v1/events', ['GET', 'POST']],
    ['GET', '/api/v1/events/batch', ['POST']],
    ['PUT', '/api/v1/events/batch', ['POST']],
    ['POST', '/api/v1/events/health', ['GET']],
    ['DELETE', '/api/v1/events/test', ['GET']],
    ['POST', '/api/v1/events/type/checkout', ['GET']],
    ['DELETE', '/api/v1/events/evt_1', ['GET']],
    ['PUT', '/api/v1/events/evt_1', ['GET']],
    ['POST', '/api/v1/openapi.json', ['GET']],
  ];
  for (const [method, path, allowed] of cases) {
    const res = await svc.request(path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: method === 'GET' ? null : JSON.stringify({ eventType: 'a', source: 'b' }),
    });
    const allow = (res.headers.get('allow') ?? '').split(',').map((m) => m.trim());
    t.same(allow.sort(), [...allowed].sort(), `Allow for ${method} ${path}`);
    const error = await expectError(t, res, 405, 'METHOD_NOT_ALLOWED');
    t.match(error.message, method);
  }
  await nothingStored(t);
});

void t.test('unknown paths: 404 with a JSON body', async (t) => {
  const cases: readonly [string, string][] = [
    ['GET', '/index.html'],
    ['GET', '/api'],
    ['GET', '/api/v1'],
    ['GET', '/api/v1/event'],
    ['GET', '/api/v2/events'],
    ['GET', '/api/v1/events/type'],
    ['GET', '/api/v1/events/type/a/b'],
    ['GET', '/api/v1/events/evt_1/more'],
    ['GET', '/favicon.ico'],
    ['POST', '/api/v1/event'],
    ['DELETE', '/nowhere'],
  ];
  for (const [method, path] of cases) {
    const res = await svc.request(path, { method });
    await expectError(t, res, 404, 'NOT_FOUND');
  }
});

void t.test('a Content-Type that is not JSON: 415', async (t) => {
  const body = JSON.stringify({ eventType: 'a', source: 'b' });
  for (const path of INGEST) {
    for (const type of [
      null,
      'text/plain',
      'application/xml',
      'application/x-www-form-urlencoded',
      'application/jsonp',
      'text/json',
    ]) {
      const res = await postRaw(svc, path, path.endsWith('batch') ? `[${body}]` : body, type);
      const error = await expectError(t, res, 415, 'UNSUPPORTED_MEDIA_TYPE');
      t.match(error.message, 'application/json', `${path} with ${type}`);
    }
  }
  await nothingStored(t);
});

void t.test(
  'JSON media types with parameters or a +json suffix pass the media check',
  async (t) => {
    // An invalid event, so the answer (400 naming the field) proves the body was read.
    for (const type of [
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/vnd.example+json',
    ]) {
      const res = await postRaw(svc, '/api/v1/events', '{"eventType":"a"}', type);
      await expectError(t, res, 400, 'VALIDATION_FAILED', ['source']);
    }
    await nothingStored(t);
  },
);

/** POST with Transfer-Encoding: chunked (no Content-Length), answering status and body. */
function postChunked(
  path: string,
  chunks: readonly string[],
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${svc.base}${path}`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'transfer-encoding': 'chunked',
          ...keyHeaders(),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    // The server may close while the rest is still being written: only the answer matters.
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

void t.test('a body over MAX_BODY_BYTES: 413, declared or streamed', async (t) => {
  const big = JSON.stringify({
    eventType: 'a',
    source: 'b',
    metadata: { pad: 'x'.repeat(MAX_BODY_BYTES) },
  });
  for (const path of INGEST) {
    const res = await postRaw(svc, path, path.endsWith('batch') ? `[${big}]` : big);
    await expectError(t, res, 413, 'PAYLOAD_TOO_LARGE');

    const chunked = await postChunked(
      path,
      Array.from({ length: 6 }, (_, i) => (i === 0 ? '{"x":"' : 'y'.repeat(500))),
    );
    t.equal(chunked.status, 413, `${path} chunked`);
    t.match(JSON.parse(chunked.body), { status: 'error', code: 'PAYLOAD_TOO_LARGE' });
  }
  // Exactly at the limit is read (and then judged on its content).
  const frame = '{"eventType":"a","pad":""}';
  const exact = frame.replace('""}', `"${'z'.repeat(MAX_BODY_BYTES - frame.length)}"}`);
  t.equal(Buffer.byteLength(exact), MAX_BODY_BYTES);
  const res = await postRaw(svc, '/api/v1/events', exact);
  await expectError(t, res, 400, 'VALIDATION_FAILED', ['source', 'pad']);
  // A small chunked body is fine.
  const small = await postChunked('/api/v1/events', ['{"eventType":', '"a"}']);
  t.equal(small.status, 400);
  t.match(JSON.parse(small.body), {
    code: 'VALIDATION_FAILED',
    errors: { source: 'source is required' },
  });
  await nothingStored(t);
});

void t.test('malformed JSON: 400 MALFORMED_JSON', async (t) => {
  const bodies = [
    '{',
    '{"eventType":"a","source":"b",}',
    "{'eventType':'a','source':'b'}",
    '{"eventType":"a","source":"b"}{"eventType":"c","source":"d"}',
    '{"eventType":"a","source":"b"} x',
    'undefined',
    'NaN',
    '{"eventType":"a\u0000b","source":"s"}', // a raw control character inside a string
    '{"eventType":"a\nb","source":"s"}',
  ];
  for (const path of INGEST) {
    for (const body of bodies) {
      const res = await postRaw(svc, path, body);
      const error = await expectError(t, res, 400, 'MALFORMED_JSON');
      t.match(error.message, /json/i, JSON.stringify(body));
    }
  }
  await nothingStored(t);
});

void t.test('bytes that are not UTF-8: 400', async (t) => {
  const prefix = Buffer.from('{"eventType":"a","source":"');
  const suffix = Buffer.from('"}');
  const invalid = [
    [0xff],
    [0xc3], // truncated two-byte sequence
    [0xc0, 0xaf], // overlong '/'
    [0xed, 0xa0, 0x80], // an encoded surrogate
    [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
  ];
  for (const path of INGEST) {
    for (const bytes of invalid) {
      const body = Buffer.concat([prefix, Buffer.from(bytes), suffix]);
      const res = await postRaw(
        svc,
        path,
        path.endsWith('batch') ? Buffer.concat([Buffer.from('['), body, Buffer.from(']')]) : body,
      );
      const error = await expectError(t, res, 400, 'MALFORMED_JSON');
      t.match(error.message, 'UTF-8');
    }
  }
  await nothingStored(t);
});

void t.test('an empty body: 400', async (t) => {
  for (const path of INGEST) {
    for (const body of ['', ' ', '\r\n\t ']) {
      const res = await postRaw(svc, path, body);
      const error = await expectError(t, res, 400, 'MALFORMED_JSON');
      t.match(error.message, /empty/i);
    }
    const none = await svc.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    await expectError(t, none, 400, 'MALFORMED_JSON');
  }
  await nothingStored(t);
});

void t.test('a body that is not an object: 400', async (t) => {
  for (const path of INGEST) {
    for (const body of ['null', '5', '"event"', 'true']) {
      const res = await postRaw(svc, path, body);
      await expectError(t, res, 400, 'MALFORMED_JSON');
    }
  }
  // An array is a batch, never one event.
  const res = await postRaw(svc, '/api/v1/events', '[{"eventType":"a","source":"b"}]');
  await expectError(t, res, 400, 'VALIDATION_FAILED', ['body']);
  await nothingStored(t);
});

void t.test('after all of that the service still ingests', async (t) => {
  const res = await svc.request('/api/v1/events', { json: { eventType: 'a', source: 'b' } });
  t.equal(res.status, 202);
  t.same(await stored(svc.db), { rows: 1, counted: 1 });
});
