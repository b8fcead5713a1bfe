// The group-commit batcher's write deadline: a write that never settles (a frozen PostgreSQL)
// answers its requests with a database timeout, keeps its events counted in the queue until the
// write really ends (503 past the bound meanwhile), and a write in time answers as before.
import t from 'tap';
import { createIngestBatcher } from '../../src/actors/ingest-batcher.ts';
import type { StoragePool } from '../../src/actors/storage-pool.ts';
import type { NewEvent } from '../../src/domain/event.ts';
import { newEvent as event } from '../support/new-event.ts';

/** A pool whose insert answers when `release` is called (ids 1..n). */
function pendingPool(): { pool: StoragePool; release: () => void; writes: () => number } {
  const waiting: (() => void)[] = [];
  let writes = 0;
  const pool = {
    run: (_name: string, input: { events: readonly NewEvent[] }) => {
      writes++;
      return new Promise((resolve) => {
        waiting.push(() => resolve({ ok: true, value: input.events.map((_, i) => i + 1) }));
      });
    },
    queued: () => 0,
    close: async () => {},
  } as unknown as StoragePool;
  return { pool, release: () => waiting.splice(0).forEach((r) => r()), writes: () => writes };
}

void t.test('a write past the deadline answers DB_FAILURE, the queue stays bounded', async (t) => {
  const { pool, release } = pendingPool();
  const batcher = createIngestBatcher(pool, {
    batchMax: 10,
    batchWaitMs: 0,
    queueMax: 15,
    writeTimeoutMs: 50,
  });
  const started = Date.now();
  const result = await batcher.submit([event(1), event(2)]);
  t.same(result, { ok: false, code: 'DB_FAILURE', message: 'database timeout' });
  t.ok(Date.now() - started < 1000, 'answered at the deadline');
  t.equal(batcher.pending(), 2, 'still counted until the write ends');
  await t.rejects(
    batcher.submit(Array.from({ length: 14 }, (_, i) => event(i))),
    { code: 'OVERLOADED' },
    'the bound counts the timed-out write',
  );
  release();
  await batcher.drain();
  t.equal(batcher.pending(), 0, 'released when the write ends');
});

void t.test('a write in time answers its ids; no deadline means waiting', async (t) => {
  const { pool, release } = pendingPool();
  const batcher = createIngestBatcher(pool, {
    batchMax: 10,
    batchWaitMs: 0,
    queueMax: 100,
    writeTimeoutMs: 5_000,
  });
  const answer = batcher.submit([event(1), event(2)]);
  setTimeout(release, 20);
  t.same(await answer, { ok: true, value: [1, 2] });

  const patient = pendingPool();
  const waiting = createIngestBatcher(patient.pool, {
    batchMax: 10,
    batchWaitMs: 0,
    queueMax: 100,
  });
  let settled = false;
  const later = waiting.submit([event(3)]).then((r) => {
    settled = true;
    return r;
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.equal(settled, false, 'without writeTimeoutMs the request waits');
  patient.release();
  t.same(await later, { ok: true, value: [1] });
});
