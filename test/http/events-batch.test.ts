// POST /api/v1/events/batch (DESIGN 2): an array or { events }, at most BATCH_MAX_EVENTS items;
// valid items are stored even beside invalid ones, one result per item in order.
import t from 'tap';
import {
  expectError,
  idOf,
  readBatch,
  stored,
  storedEvent,
  type BatchResult,
} from '../support/events.ts';
import { startTestService } from '../support/service.ts';

const MAX = 5;
const svc = await startTestService(t, { BATCH_MAX_EVENTS: String(MAX) });

const item = (i: number, extra: Record<string, unknown> = {}) => ({
  eventType: `batch.item`,
  source: 'batcher',
  metadata: { i },
  ...extra,
});

const postBatch = async (body: unknown): Promise<BatchResult> => {
  const res = await svc.request('/api/v1/events/batch', { json: body });
  if (res.status !== 202) throw new Error(`expected 202, got ${res.status}: ${await res.text()}`);
  return readBatch(res);
};

void t.test('an array of events: every one stored, acks in order', async (t) => {
  const before = await stored(svc.db);
  const items = [0, 1, 2].map((i) => item(i, { timestamp: `2026-11-22T10:0${i}:00+01:00` }));
  const result = await postBatch(items);
  t.match(result, { status: 'accepted', accepted: 3, rejected: 0 });
  t.equal(result.results.length, 3);
  for (const [i, r] of result.results.entries()) {
    if (r.status !== 'accepted') throw new Error(`item ${i} was rejected`);
    t.match(r, { eventType: 'batch.item', timestamp: `2026-11-22T09:0${i}:00.000Z` });
    const row = await storedEvent(svc.db, idOf(r.eventId));
    t.same(row?.metadata, { i }, `result ${i} is the stored item ${i}`);
    t.equal(row?.timestamp, `2026-11-22T09:0${i}:00.000Z`);
  }
  t.same(await stored(svc.db), { rows: before.rows + 3, counted: before.counted + 3 });
});

void t.test('{ events: [...] } is the same as the bare array', async (t) => {
  const result = await postBatch({ events: [item(10), item(11)] });
  t.match(result, { status: 'accepted', accepted: 2, rejected: 0 });
  for (const [k, r] of result.results.entries()) {
    if (r.status !== 'accepted') throw new Error(`item ${k} was rejected`);
    t.same((await storedEvent(svc.db, idOf(r.eventId)))?.metadata, { i: 10 + k });
  }
});

void t.test(
  'mixed valid and invalid items: valid ones stored, results in order with index',
  async (t) => {
    const before = await stored(svc.db);
    const items = [
      item(20),
      { eventType: 'batch.item', severity: 'info' },
      item(22, { tags: { region: 'eu\u0000' } }),
      item(23, { userId: null }),
      item(24, { extra: 1 }),
    ];
    const result = await postBatch(items);
    t.match(result, { status: 'accepted', accepted: 2, rejected: 3 });
    const [r0, r1, r2, r3, r4] = result.results;
    t.match(r0, { status: 'accepted' });
    t.same(r1, {
      status: 'error',
      index: 1,
      errors: {
        source: 'source is required',
        severity: 'must be one of INFO, WARNING, ERROR, CRITICAL',
      },
    });
    t.match(r2, { status: 'error', index: 2 });
    t.same(Object.keys(r2?.status === 'error' ? r2.errors : {}), ['tags.region']);
    t.match(r3, { status: 'accepted' });
    t.match(r4, { status: 'error', index: 4 });
    t.same(Object.keys(r4?.status === 'error' ? r4.errors : {}), ['extra']);
    for (const [r, i] of [
      [r0, 20],
      [r3, 23],
    ] as const) {
      if (r?.status !== 'accepted') throw new Error('expected an ack');
      t.match(await storedEvent(svc.db, idOf(r.eventId)), { metadata: { i }, userId: null });
    }
    t.same(
      await stored(svc.db),
      { rows: before.rows + 2, counted: before.counted + 2 },
      'only the valid items',
    );
  },
);

void t.test('items that are not objects are rejected one by one', async (t) => {
  const before = await stored(svc.db);
  const result = await postBatch([5, null, 'event', [item(30)], item(34)]);
  t.match(result, { accepted: 1, rejected: 4 });
  for (const index of [0, 1, 2, 3]) {
    t.same(result.results[index], {
      status: 'error',
      index,
      errors: { body: 'must be a JSON object' },
    });
  }
  t.same(await stored(svc.db), { rows: before.rows + 1, counted: before.counted + 1 });
});

void t.test('a batch of only invalid items answers 202 and stores nothing', async (t) => {
  const before = await stored(svc.db);
  const result = await postBatch([{ eventType: 'a' }, { source: 'b' }]);
  t.match(result, { status: 'accepted', accepted: 0, rejected: 2 });
  t.same(
    result.results.map((r) => r.status === 'error' && [r.index, Object.keys(r.errors)]),
    [
      [0, ['source']],
      [1, ['eventType']],
    ],
  );
  t.same(await stored(svc.db), before);
});

void t.test(
  `exactly BATCH_MAX_EVENTS (${MAX}) items are accepted, one more is refused`,
  async (t) => {
    const full = Array.from({ length: MAX }, (_, i) => item(40 + i));
    t.match(await postBatch(full), { accepted: MAX, rejected: 0 });
    t.match(await postBatch({ events: full }), { accepted: MAX, rejected: 0 });
    const before = await stored(svc.db);
    const over = [...full, item(49)];
    for (const body of [over, { events: over }]) {
      const res = await svc.request('/api/v1/events/batch', { json: body });
      const error = await expectError(t, res, 400, 'VALIDATION_FAILED', ['events']);
      t.match(error.errors?.events, String(MAX));
    }
    t.same(await stored(svc.db), before, 'nothing of an oversized batch is stored');
  },
);

void t.test('bodies that are not a batch: 400 naming the field, nothing stored', async (t) => {
  const before = await stored(svc.db);
  const bad: readonly [unknown, readonly string[]][] = [
    [[], ['events']],
    [{ events: [] }, ['events']],
    [{}, ['events']],
    [{ events: 'all' }, ['events']],
    [{ events: { 0: item(50) } }, ['events']],
    [{ events: null }, ['events']],
    [{ events: [item(51)], extra: true }, ['extra']],
    [item(52), ['eventType', 'source', 'metadata']],
  ];
  for (const [body, fields] of bad) {
    const res = await svc.request('/api/v1/events/batch', { json: body });
    await expectError(t, res, 400, 'VALIDATION_FAILED', fields);
  }
  t.same(await stored(svc.db), before);
});

void t.test('concurrent batches and single events are stored under their own ids', async (t) => {
  const before = await stored(svc.db);
  const batches = Array.from({ length: 8 }, (_, b) =>
    postBatch(Array.from({ length: MAX }, (_, k) => item(1000 + b * 10 + k))),
  );
  const singles = Array.from({ length: 8 }, (_, s) =>
    svc
      .request('/api/v1/events', { json: item(2000 + s) })
      .then((r) => r.json() as Promise<{ eventId: string }>),
  );
  const [results, acks] = await Promise.all([Promise.all(batches), Promise.all(singles)]);
  for (const [b, result] of results.entries()) {
    for (const [k, r] of result.results.entries()) {
      if (r.status !== 'accepted') throw new Error('rejected');
      t.same((await storedEvent(svc.db, idOf(r.eventId)))?.metadata, { i: 1000 + b * 10 + k });
    }
  }
  for (const [s, ack] of acks.entries()) {
    t.same((await storedEvent(svc.db, idOf(ack.eventId)))?.metadata, { i: 2000 + s });
  }
  const added = 8 * MAX + 8;
  t.same(await stored(svc.db), { rows: before.rows + added, counted: before.counted + added });
});
