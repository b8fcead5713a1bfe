// Idempotent ingest on the real server (issue 22): a repeated key answers the first eventId and
// timestamp and stores and counts nothing (rows, page counts, metrics); the Idempotency-Key
// header of a single POST; a key reused for another body is 422; concurrent duplicates store one
// row; a batch with keys repeated inside it; each API key's keys are its own; a key past the
// window (pruner fired by the test, its clock moved) stores anew.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { getMetrics, waitForMetrics } from '../service/helpers.ts';
import {
  expectError,
  idOf,
  readAck,
  readBatch,
  stored,
  storedEvent,
  type Ack,
} from '../support/events.ts';
import { docText } from '../support/doc-tables.ts';
import { keyHeaders, TEST_ADMIN_KEY } from '../support/keys.ts';
import { startTestService } from '../support/service.ts';

const HOUR = 3_600_000;
let fireIdempotencyPruner = (): void => {};
let clockOffset = 0;
const svc = await startTestService(
  t,
  { METRICS_REFRESH_MS: '50', DB_CONNECTIONS_PER_WORKER: '4' },
  {
    hooks: {
      idempotencyTimers: {
        setInterval: (callback) => {
          fireIdempotencyPruner = callback;
          return 1;
        },
        clearInterval: () => {},
      },
      idempotencyClock: () => Date.now() + clockOffset,
    },
  },
);

const event = (type: string, extra: Record<string, unknown> = {}) => ({
  eventType: type,
  source: 'retrying-producer',
  metadata: { order: 7 },
  ...extra,
});

const post = (body: unknown, headers: Record<string, string> = {}) =>
  svc.request('/api/v1/events', { json: body, headers });

async function accepted(res: Response): Promise<Ack> {
  if (res.status !== 202) throw new Error(`expected 202, got ${res.status}: ${await res.text()}`);
  return readAck(res);
}

const keyRows = async (key: string): Promise<number> => {
  const [row] = await svc.db.sql<{ n: number }[]>`
    SELECT count(*)::int4 AS n FROM idempotency_keys WHERE key = ${key}`;
  return row?.n ?? 0;
};

void t.test('a repeat answers the first eventId and timestamp and stores nothing', async (t) => {
  const before = await stored(svc.db);
  // No timestamp: the server sets it on receipt, and the repeat still gets the first one.
  const first = await accepted(await post(event('idem.single', { idempotencyKey: 'k-1' })));
  const again = await accepted(await post(event('idem.single', { idempotencyKey: 'k-1' })));
  t.same(again, first, 'the same acknowledgement, word for word');
  t.same(await stored(svc.db), { rows: before.rows + 1, counted: before.counted + 1 });
  t.equal(await keyRows('k-1'), 1);
});

void t.test('the Idempotency-Key header of a single POST is the same key', async (t) => {
  const header = { 'idempotency-key': 'k-header' };
  const first = await accepted(await post(event('idem.header'), header));
  const byField = await accepted(await post(event('idem.header', { idempotencyKey: 'k-header' })));
  t.same(byField, first, 'header and field name one key');
  const both = await accepted(
    await post(event('idem.header', { idempotencyKey: 'k-header' }), header),
  );
  t.same(both, first, 'both, the same: fine');
  const differ = await post(event('idem.header', { idempotencyKey: 'other' }), header);
  await expectError(t, differ, 400, 'VALIDATION_FAILED', ['idempotencyKey']);
  t.equal(await keyRows('other'), 0, 'nothing stored');
});

void t.test('a key reused for another body is 422, naming the first event', async (t) => {
  const first = await accepted(await post(event('idem.reuse', { idempotencyKey: 'k-reuse' })));
  const before = await stored(svc.db);
  const res = await post(
    event('idem.reuse', { idempotencyKey: 'k-reuse', metadata: { order: 8 } }),
  );
  const body = await expectError(t, res, 422, 'IDEMPOTENCY_KEY_REUSED', ['idempotencyKey']);
  t.match(body.message, first.eventId, 'the message names the event the key was used for');
  t.match(body.message, 'k-reuse');
  t.same(await stored(svc.db), before, 'nothing stored');
});

void t.test('bad keys are refused before anything is stored', async (t) => {
  await expectError(
    t,
    await post(event('idem.bad', { idempotencyKey: '' })),
    400,
    'VALIDATION_FAILED',
    ['idempotencyKey'],
  );
  const long = 'x'.repeat(129);
  await expectError(
    t,
    await post(event('idem.bad', { idempotencyKey: long })),
    400,
    'VALIDATION_FAILED',
    ['idempotencyKey'],
  );
  await expectError(
    t,
    await post(event('idem.bad', { idempotencyKey: 7 })),
    400,
    'VALIDATION_FAILED',
    ['idempotencyKey'],
  );
  t.equal(
    (await accepted(await post(event('idem.bad', { idempotencyKey: '😀'.repeat(128) })))).status,
    'accepted',
    '128 characters',
  );
});

void t.test('concurrent duplicates: one row, every answer the same', async (t) => {
  const before = await stored(svc.db);
  const body = event('idem.concurrent', { idempotencyKey: 'k-race' });
  const answers = await Promise.all(
    Array.from({ length: 40 }, async () => accepted(await post(body))),
  );
  t.equal(new Set(answers.map((a) => JSON.stringify(a))).size, 1, 'one acknowledgement');
  t.same(await stored(svc.db), { rows: before.rows + 1, counted: before.counted + 1 });
  t.equal(await keyRows('k-race'), 1);
});

void t.test('a batch: keys repeated inside it and across batches, a reuse per item', async (t) => {
  const before = await stored(svc.db);
  const items = [
    event('idem.batch', { idempotencyKey: 'b-1', metadata: { n: 1 } }),
    event('idem.batch', { idempotencyKey: 'b-1', metadata: { n: 1 } }),
    event('idem.batch', { metadata: { n: 2 } }),
    event('idem.batch', { idempotencyKey: 'b-1', metadata: { n: 3 } }),
    event('idem.batch', { idempotencyKey: 'b-2', metadata: { n: 4 } }),
  ];
  const res = await svc.request('/api/v1/events/batch', { json: items });
  t.equal(res.status, 202);
  const result = await readBatch(res);
  t.match(result, { accepted: 4, rejected: 1 });
  const [one, oneAgain, plain, reused, two] = result.results;
  t.same(oneAgain, one, 'the repeat inside the batch gets the first item acknowledgement');
  t.match(plain, { status: 'accepted' });
  t.match(reused, { status: 'error', index: 3, errors: { idempotencyKey: /already used/ } });
  t.match(two, { status: 'accepted' });
  t.same(await stored(svc.db), { rows: before.rows + 3, counted: before.counted + 3 });
  if (one?.status !== 'accepted') throw new Error('item 0 not accepted');
  t.same((await storedEvent(svc.db, idOf(one.eventId)))?.metadata, { n: 1 });

  const retried = await readBatch(await svc.request('/api/v1/events/batch', { json: items }));
  const keyedOnly = (r: typeof result) => r.results.filter((_, i) => i !== 2);
  t.same(keyedOnly(retried), keyedOnly(result), 'the batch retried: keyed items answer the same');
  const eventIdOf = (r: (typeof result.results)[number] | undefined) =>
    r?.status === 'accepted' ? r.eventId : null;
  t.not(
    eventIdOf(retried.results[2]),
    eventIdOf(plain),
    'the item without a key is stored again, as it always was',
  );
  t.same(await stored(svc.db), { rows: before.rows + 4, counted: before.counted + 4 });
  const withHeader = await svc.request('/api/v1/events/batch', {
    json: items,
    headers: { 'idempotency-key': 'whole-batch' },
  });
  await expectError(t, withHeader, 400, 'VALIDATION_FAILED', ['idempotencyKey']);
  t.same(await stored(svc.db), { rows: before.rows + 4, counted: before.counted + 4 });
  const single = await accepted(await post(items[4]));
  t.same(single, two, 'a batch item key is the same key on a single POST');
});

void t.test("each API key's keys are its own", async (t) => {
  const res = await svc.request('/api/v1/keys', { json: { name: 'producer-a', scope: 'ingest' } });
  t.equal(res.status, 201);
  const { key } = (await res.json()) as { key: string };
  const body = event('idem.scope', { idempotencyKey: 'shared-name' });
  const mine = await accepted(await post(body, keyHeaders(key)));
  const operators = await accepted(await post(body));
  t.not(operators.eventId, mine.eventId, 'the same key of another producer is stored apart');
  const mineAgain = await accepted(await post(body, keyHeaders(key)));
  t.same(mineAgain, mine);
  // Another producer cannot learn anything of this producer's key by reusing it.
  const probe = await post(event('idem.scope', { idempotencyKey: 'shared-name', metadata: {} }));
  const refused = await expectError(t, probe, 422, 'IDEMPOTENCY_KEY_REUSED', ['idempotencyKey']);
  t.match(refused.message, operators.eventId, "the operator's own event, not producer-a's");
});

void t.test('metrics count a repeated event once', async (t) => {
  const type = 'idem.metrics';
  const body = event(type, { idempotencyKey: 'k-metrics' });
  for (let i = 0; i < 5; i++) await accepted(await post(body));
  const batch = [body, body, event(type, { idempotencyKey: 'k-metrics-2' })];
  const res = await svc.request('/api/v1/events/batch', { json: batch });
  t.match(await readBatch(res), { accepted: 3, rejected: 0 });
  // Markers after the repeats: once every marker is counted, so is anything posted before them.
  for (let i = 0; i < 10; i++) await accepted(await post(event('idem.marker')));
  const snapshot = await waitForMetrics(
    svc,
    (s) => s.eventsByType['idem.marker'] === 10,
    'the markers to be counted',
  );
  t.equal(snapshot.eventsByType[type], 2, 'the first of k-metrics and k-metrics-2');
  t.equal((await getMetrics(svc)).eventsByType[type], 2);
});

void t.test('a key past the window is pruned, and a repeat then stores anew', async (t) => {
  const first = await accepted(await post(event('idem.window', { idempotencyKey: 'k-window' })));
  clockOffset = 25 * HOUR;
  fireIdempotencyPruner();
  while ((await keyRows('k-window')) > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  clockOffset = 0;
  const later = await accepted(await post(event('idem.window', { idempotencyKey: 'k-window' })));
  t.not(later.eventId, first.eventId, 'stored anew');
  t.equal(await keyRows('k-window'), 1);
});

void t.test("the README's retry example, run twice as written, stores one event", async (t) => {
  const blocks = [...docText('README.md').matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  const retry = blocks.filter((b) => b.includes('Idempotency-Key:'));
  t.equal(retry.length, 1, 'one README block shows the header');
  const script = (retry[0] ?? '').replaceAll('localhost:8080', svc.base.slice('http://'.length));
  const env = { ...process.env, VIGIL_KEY: TEST_ADMIN_KEY };
  const sh = async () =>
    JSON.parse((await promisify(execFile)('bash', ['-c', script], { env })).stdout) as Ack;
  const before = await stored(svc.db);
  const first = await sh();
  t.match(first, { status: 'accepted' });
  t.same(await sh(), first, 'the retry answers the first acknowledgement');
  t.same(await stored(svc.db), { rows: before.rows + 1, counted: before.counted + 1 });
});
