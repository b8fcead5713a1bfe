// Group commit: while every writer slot is busy, requests queue into the next batch; batches keep
// whole requests and respect INGEST_BATCH_MAX; at most maxInFlight writes at once.
import t from 'tap';
import { createIngestBatcher } from '../../src/actors/ingest-batcher.ts';
import type { StoragePool } from '../../src/actors/storage-pool.ts';
import type { NewEvent } from '../../src/domain/event.ts';
import { FakeStoragePool } from '../support/fake-storage-pool.ts';
import { ManualTimers } from '../support/manual-timers.ts';
import { newEvent as event } from '../support/new-event.ts';

interface Write {
  readonly events: readonly NewEvent[];
  readonly finish: () => void;
}

/** A storage pool whose inserts finish when the test says so; ids count up across writes. */
function heldPool(): { pool: StoragePool; writes: Write[] } {
  const writes: Write[] = [];
  let nextId = 1;
  const pool = new FakeStoragePool({
    insertEvents: (input) =>
      new Promise((resolve) => {
        const ids = input.events.map(() => nextId++);
        writes.push({ ...input, finish: () => resolve({ ok: true, value: ids }) });
      }),
  });
  return { pool, writes };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** One writer, room for every test's events, no lingering. */
const ONE_WRITER = { batchMax: 100, batchWaitMs: 0, queueMax: 10_000, maxInFlight: 1 };

t.test('requests arriving while the writers are busy form one next batch', async (t) => {
  const { pool, writes } = heldPool();
  const batcher = createIngestBatcher(pool, ONE_WRITER);
  const first = batcher.submit([event(0)], 100);
  await tick();
  t.equal(writes.length, 1, 'the first request is written at once');
  const later = [1, 2, 3].map((i) => batcher.submit([event(i), event(i + 10)], 100));
  await tick();
  t.equal(writes.length, 1, 'no second write while the only slot is busy');
  writes[0]?.finish();
  t.same(await first, { ok: true, value: [1] });
  await tick();
  t.equal(writes.length, 2);
  t.equal(writes[1]?.events.length, 6, 'the three queued requests went out together');
  writes[1]?.finish();
  t.same(await Promise.all(later), [
    { ok: true, value: [2, 3] },
    { ok: true, value: [4, 5] },
    { ok: true, value: [6, 7] },
  ]);
  t.equal(batcher.pending(), 0);
});

t.test('batches keep whole requests, stay within batchMax and maxInFlight', async (t) => {
  const { pool, writes } = heldPool();
  const batcher = createIngestBatcher(pool, {
    batchMax: 5,
    batchWaitMs: 0,
    queueMax: 10_000,
    maxInFlight: 3,
  });
  const sizes = [3, 3, 2, 4, 1];
  const answers = sizes.map((n, r) =>
    batcher.submit(
      Array.from({ length: n }, (_, i) => event(r * 10 + i)),
      100,
    ),
  );
  await tick();
  t.same(
    writes.map((w) => w.events.length),
    [3, 3, 2],
    'a full queue is written at once, in whole requests within batchMax',
  );
  writes.forEach((w) => w.finish());
  await tick();
  t.equal(writes.length, 4, 'the rest goes out when a slot frees');
  t.equal(writes[3]?.events.length, 5, 'as one batch: the requests of 4 and 1 events');
  writes[3]?.finish();
  const results = await Promise.all(answers);
  t.same(
    results.map((r) => (r.ok ? r.value.length : -1)),
    sizes,
  );
  await batcher.drain();
});

t.test('past queueMax a request is refused with OVERLOADED and nothing is queued', async (t) => {
  const { pool, writes } = heldPool();
  const batcher = createIngestBatcher(pool, {
    batchMax: 100,
    batchWaitMs: 0,
    queueMax: 10,
    maxInFlight: 1,
  });
  const held = batcher.submit(
    Array.from({ length: 8 }, (_, i) => event(i)),
    100,
  );
  await t.rejects(batcher.submit([event(1), event(2), event(3)], 100), { code: 'OVERLOADED' });
  t.equal(batcher.pending(), 8);
  await tick();
  writes[0]?.finish();
  await held;
  await batcher.drain();
  t.equal(batcher.pending(), 0);
});

t.test(
  'past queueMaxBytes a request is refused with OVERLOADED; a write frees its bytes',
  async (t) => {
    const { pool, writes } = heldPool();
    const batcher = createIngestBatcher(pool, { ...ONE_WRITER, queueMaxBytes: 1000 });
    // Alone in an empty queue, a request larger than the bound still goes (it passed MAX_BODY_BYTES).
    const large = batcher.submit([event(0)], 5000);
    await t.rejects(batcher.submit([event(1)], 1), { code: 'OVERLOADED' }, 'full in bytes');
    t.equal(batcher.pending(), 1, 'the refused request is not queued');
    await tick();
    writes[0]?.finish();
    await large;
    await batcher.drain(); // the write has ended: its bytes are free
    const first = batcher.submit([event(2)], 600);
    await t.rejects(batcher.submit([event(3)], 401), { code: 'OVERLOADED' }, '600 + 401 > 1000');
    const second = batcher.submit([event(4)], 400);
    await tick();
    t.equal(writes.length, 2, 'both requests went out in one batch');
    writes[1]?.finish();
    await Promise.all([first, second]);
    await batcher.drain();
    t.equal(batcher.pending(), 0);
  },
);

t.test('under load a batch lingers batchWaitMs for more events', async (t) => {
  const { pool, writes } = heldPool();
  const timers = new ManualTimers();
  const batcher = createIngestBatcher(pool, {
    batchMax: 100,
    batchWaitMs: 200,
    queueMax: 10_000,
    maxInFlight: 4,
    timers,
  });
  const lone = batcher.submit([event(0)], 100);
  await tick();
  t.equal(writes.length, 1, 'with nothing in flight a request leaves at the next turn');
  t.same(timers.pending(), [], 'without lingering');
  const early = batcher.submit([event(1)], 100);
  await tick();
  t.equal(writes.length, 1, 'with a write in flight the next one waits, though slots are free');
  t.same(timers.pending(), [200], 'for batchWaitMs');
  timers.advance(150);
  const late = batcher.submit([event(2), event(3)], 100);
  await tick();
  t.same(timers.pending(), [50], 'a later request does not extend the wait of the oldest');
  timers.advance(49);
  t.equal(writes.length, 1, 'still waiting 1 ms before batchWaitMs');
  timers.advance(1);
  t.equal(writes.length, 2, 'at batchWaitMs the waiting requests leave');
  t.equal(writes[1]?.events.length, 3, 'together, in one batch');
  writes.forEach((w) => w.finish());
  t.same(await Promise.all([lone, early, late]), [
    { ok: true, value: [1] },
    { ok: true, value: [2] },
    { ok: true, value: [3, 4] },
  ]);
  await batcher.drain();
});

t.test('a batch that reaches batchMax or finds nothing in flight does not linger', async (t) => {
  const { pool, writes } = heldPool();
  const timers = new ManualTimers();
  const batcher = createIngestBatcher(pool, {
    batchMax: 3,
    batchWaitMs: 60_000,
    queueMax: 10_000,
    maxInFlight: 4,
    timers,
  });
  const first = batcher.submit([event(0)], 100);
  await tick();
  const full = batcher.submit([event(1), event(2), event(3)], 100);
  await tick();
  t.equal(writes.length, 2, 'a full batch leaves at once beside the one in flight');
  const waiting = batcher.submit([event(4)], 100);
  await tick();
  t.equal(writes.length, 2, 'a small one lingers while writes are in flight');
  t.same(timers.pending(), [60_000], 'for batchWaitMs');
  writes[0]?.finish();
  writes[1]?.finish();
  await Promise.all([first, full]);
  await tick();
  t.equal(writes.length, 3, 'once nothing is in flight it leaves without waiting out the linger');
  t.same(timers.pending(), [], 'its linger timer cleared');
  writes[2]?.finish();
  t.same(await waiting, { ok: true, value: [5] });
  await batcher.drain();
});
