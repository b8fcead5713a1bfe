// The idempotency-key pruner (issue 22) against PostgreSQL: the window is measured on the clock
// it is given, so a test moves `now` instead of waiting a day; a run deletes at most `chunk` rows
// per statement and `chunksPerRun` statements, the rest waits for the next run; runs come every
// PRUNE_EVERY_MS and stop with the service.
import t from 'tap';
import { PRUNE_EVERY_MS, startIdempotencyPruner } from '../../src/actors/idempotency-pruner.ts';
import { insertKeyedEvents, pruneIdempotencyKeys } from '../../src/db/idempotent-insert.ts';
import { createLogger } from '../../src/log.ts';
import { createTestDatabase } from '../support/database.ts';
import { newEvent } from '../support/new-event.ts';

const db = await createTestDatabase(t);
const HOUR = 3_600_000;
const T = Date.UTC(2026, 10, 25);

await insertKeyedEvents(
  db.sql,
  Array.from({ length: 12 }, (_, i) => ({
    ...newEvent(i),
    timestamp: T,
    receivedAt: T,
    idempotency: { producer: 1, key: `k${i}`, timestampGiven: true },
  })),
  T,
);

let now = T;
let tick: (() => void) | null = null;
let period = 0;
const pruner = startIdempotencyPruner(
  {
    run: async (_name, { before, limit }) => ({
      ok: true,
      value: await pruneIdempotencyKeys(db.sql, before, limit),
    }),
  },
  {
    windowHours: 24,
    log: createLogger('fatal', 'test'),
    clock: () => now,
    chunk: 5,
    chunksPerRun: 2,
    timers: {
      setInterval: (callback, ms) => {
        tick = callback;
        period = ms;
        return 1;
      },
      clearInterval: () => (tick = null),
    },
  },
);

const keys = async (): Promise<number> => {
  const [row] = await db.sql<{ n: number }[]>`SELECT count(*)::int4 AS n FROM idempotency_keys`;
  return row?.n ?? 0;
};

void t.test('within the window nothing goes', async (t) => {
  now = T + 23 * HOUR;
  t.equal(await pruner.prune(), 0);
  t.equal(await keys(), 12);
});

void t.test('past it, at most chunk x chunksPerRun rows a run', async (t) => {
  now = T + 25 * HOUR;
  t.equal(await pruner.prune(), 10, 'two statements of five');
  t.equal(await keys(), 2);
  t.equal(await pruner.prune(), 2, 'the rest at the next run');
  t.equal(await keys(), 0);
});

void t.test('runs every PRUNE_EVERY_MS until stopped', async (t) => {
  t.equal(period, PRUNE_EVERY_MS);
  t.type(tick, 'function');
  pruner.stop();
  t.equal(tick, null, 'the interval is cleared');
});
