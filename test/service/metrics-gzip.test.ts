// GET /api/v1/metrics answers gzip to clients that accept it (the actor compresses each snapshot
// once) and plain JSON to the others, over raw HTTP so that no client decompresses for us.
import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import t from 'tap';
import { startTestService } from '../support/service.ts';
import { parseSnapshot, postJson, waitForMetrics } from './helpers.ts';
import { keyHeaders } from '../support/keys.ts';

interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

const svc = await startTestService(t, { METRICS_REFRESH_MS: '50' });

function rawGet(acceptEncoding: string | null, method = 'GET'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${svc.base}/api/v1/metrics`, {
      method,
      headers: {
        ...keyHeaders(),
        ...(acceptEncoding === null ? {} : { 'accept-encoding': acceptEncoding }),
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.end();
  });
}

await postJson(
  svc,
  '/api/v1/events',
  { eventType: 'gzip.check', source: 'web', userId: 'u1' },
  202,
);
await waitForMetrics(svc, (s) => s.summary.totalEvents === 1, 'the event to be counted');

t.test('Accept-Encoding: gzip gets the gzipped snapshot, marked and varied', async (t) => {
  const answer = await rawGet('gzip, deflate');
  t.equal(answer.status, 200);
  t.equal(answer.headers['content-encoding'], 'gzip');
  t.equal(answer.headers['content-type'], 'application/json');
  t.equal(answer.headers.vary, 'Accept-Encoding');
  t.equal(answer.headers['content-length'], String(answer.body.length));
  const snapshot = parseSnapshot(gunzipSync(answer.body).toString('utf8'));
  t.equal(snapshot.summary.totalEvents, 1);
  t.strictSame(snapshot.eventsByType, { 'gzip.check': 1 });
});

t.test('no Accept-Encoding, or one refusing gzip, gets plain JSON', async (t) => {
  for (const header of [null, 'identity', 'br', 'gzip;q=0']) {
    const answer = await rawGet(header);
    t.equal(answer.status, 200, String(header));
    t.equal(answer.headers['content-encoding'], undefined, `${String(header)}: not encoded`);
    t.equal(answer.headers.vary, 'Accept-Encoding', `${String(header)}: varied`);
    const snapshot = parseSnapshot(answer.body.toString('utf8'));
    t.equal(snapshot.summary.totalEvents, 1, `${String(header)}: the same snapshot`);
  }
});

t.test('the gzipped answer is smaller than the JSON it holds', async (t) => {
  const plain = await rawGet(null);
  const gzip = await rawGet('gzip');
  t.ok(gzip.body.length < plain.body.length, `${gzip.body.length} < ${plain.body.length} bytes`);
});

t.test('HEAD with gzip announces a gzipped length without a body', async (t) => {
  const plain = await rawGet(null);
  const head = await rawGet('gzip', 'HEAD');
  t.equal(head.status, 200);
  t.equal(head.headers['content-encoding'], 'gzip');
  const length = Number(head.headers['content-length']);
  t.ok(length > 0 && length < plain.body.length, `content-length ${length}`);
  t.equal(head.body.length, 0);
});
