// The group-commit batcher's write deadline: a write that never settles (a frozen PostgreSQL)
// answers its requests with a database timeout, keeps its events counted in the queue until the
// write really ends (503 past the bound meanwhile), and a write in time answers as before.
import t from 'tap';
import { createIngestBatcher } from '../../src/actors/ingest-batcher.ts';
import type { StoragePool } from '../../src/actors/storage-pool.ts';
import { FakeStoragePool } from '../support/fake-storage-pool.ts';
import { ManualTimers } from '../support/manual-timers.ts';
import { newEvent as event } from '../support/new-event.ts';

/** A pool whose insert answers when `release` is called (ids 1..n). */
function pendingPool(): { pool: StoragePool; release: () => void; writes: () => number } {
  const waiting: (() => void)[] = [];
  let writes = 0;
  const pool = new FakeStoragePool({
    insertEvents: (input) => {
      writes++;
      return new Promise((resolve) => {
        waiting.push(() => resolve({ ok: true, value: input.events.map((_, i) => i + 1) }));
      });
    },
  });
  return { pool, release: () => waiting.splice(0).forEach((r) => r()), writes: () => writes };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

void t.test('a write past the deadline answers DB_FAILURE, the queue stays bounded', async (t) => {
  const { pool, release } = pendingPool();
  const timers = new ManualTimers();
  const batcher = createIngestBatcher(pool, {
    batchMax: 10,
    batchWaitMs: 0,
    queueMax: 15,
    writeTimeoutMs: 50,
    timers,
  });
  let settled = false;
  const answer = batcher.submit([event(1), event(2)], 100).finally(() => (settled = true));
  await tick();
  t.same(timers.pending(), [50], 'the deadline is writeTimeoutMs away');
  timers.advance(49);
  await tick();
  t.equal(settled, false, 'unanswered 1 ms before the deadline');
  timers.advance(1);
  t.same(await answer, { ok: false, code: 'DB_FAILURE', message: 'database timeout' });
  t.equal(batcher.pending(), 2, 'still counted until the write ends');
  await t.rejects(
    batcher.submit(
      Array.from({ length: 14 }, (_, i) => event(i)),
      100,
    ),
    { code: 'OVERLOADED' },
    'the bound counts the timed-out write',
  );
  release();
  await batcher.drain();
  t.equal(batcher.pending(), 0, 'released when the write ends');
});

void t.test('a write in time answers its ids; no deadline means waiting', async (t) => {
  const { pool, release, writes } = pendingPool();
  const timers = new ManualTimers();
  const batcher = createIngestBatcher(pool, {
    batchMax: 10,
    batchWaitMs: 0,
    queueMax: 100,
    writeTimeoutMs: 5_000,
    timers,
  });
  const answer = batcher.submit([event(1), event(2)], 100);
  await tick();
  t.equal(writes(), 1, 'the write started');
  timers.advance(4_999);
  release();
  t.same(await answer, { ok: true, value: [1, 2] });
  t.same(timers.pending(), [], 'the deadline was cleared by the answer');

  const patient = pendingPool();
  const patientTimers = new ManualTimers();
  const waiting = createIngestBatcher(patient.pool, {
    batchMax: 10,
    batchWaitMs: 0,
    queueMax: 100,
    timers: patientTimers,
  });
  let settled = false;
  const later = waiting.submit([event(3)], 100).finally(() => (settled = true));
  await tick();
  t.equal(patient.writes(), 1, 'the write started');
  t.same(patientTimers.pending(), [], 'without writeTimeoutMs no deadline is set');
  patientTimers.advance(3_600_000);
  await tick();
  t.equal(settled, false, 'and the request still waits an hour later');
  patient.release();
  t.same(await later, { ok: true, value: [1] });
});
