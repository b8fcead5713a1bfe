// Idempotent ingest SQL against PostgreSQL (issue 22): a key's first event is stored with its key
// in one statement; a repeat answers the first id and timestamp and stores and counts nothing; a
// reuse with another body is told apart; keys repeated inside a batch; producers kept apart; a
// repeat waits for an uncommitted first and follows its outcome (commit or rollback); keys past
// the window pruned in bounded chunks, the window measured from an injected `now`.
import postgres from 'postgres';
import t from 'tap';
import type { NewEvent } from '../../src/domain/event.ts';
import { pruneBefore, type IdempotencyClaim } from '../../src/domain/idempotency.ts';
import { insertKeyedEvents, pruneIdempotencyKeys } from '../../src/db/idempotent-insert.ts';
import { createTestDatabase } from '../support/database.ts';
import { stored } from '../support/events.ts';
import { newEvent } from '../support/new-event.ts';

const db = await createTestDatabase(t);
const { sql } = db;
// The waits below hold both of `sql`'s connections: the lock watcher needs its own.
const watcher = postgres(db.url, { max: 1, onnotice: () => {} });
t.teardown(() => watcher.end({ timeout: 5 }));
const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 25, 12);

const keyed = (
  i: number,
  key: string,
  over: Partial<NewEvent> = {},
  claim: Partial<IdempotencyClaim> = {},
): NewEvent => ({
  ...newEvent(i),
  timestamp: NOW + i,
  receivedAt: NOW,
  ...over,
  idempotency: { producer: 1, key, timestampGiven: true, ...claim },
});

const keyRows = async (key: string): Promise<number> => {
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*)::int4 AS n FROM idempotency_keys WHERE key = ${key}`;
  return row?.n ?? 0;
};

void t.test('a repeat answers the first id and timestamp, stores and counts nothing', async (t) => {
  const before = await stored(db);
  const [id] = await insertKeyedEvents(sql, [keyed(1, 'a')], NOW);
  t.type(id, 'number', 'the first is stored');
  const [again] = await insertKeyedEvents(sql, [keyed(1, 'a', { receivedAt: NOW + 5 })], NOW + 5);
  t.same(again, { kind: 'repeat', id, timestamp: NOW + 1 });
  t.same(await stored(db), { rows: before.rows + 1, counted: before.counted + 1 });
  t.equal(await keyRows('a'), 1);
});

void t.test('another body under the same key is a reuse, not a repeat', async (t) => {
  const [id] = await insertKeyedEvents(sql, [keyed(2, 'b')], NOW);
  const before = await stored(db);
  const [other] = await insertKeyedEvents(sql, [keyed(3, 'b')], NOW);
  t.same(other, { kind: 'key-reused', id });
  const [moved] = await insertKeyedEvents(sql, [keyed(2, 'b', { timestamp: NOW })], NOW);
  t.same(moved, { kind: 'key-reused', id }, 'a given timestamp is part of the body');
  t.same(await stored(db), before);
});

void t.test('a server-set timestamp is not part of the body; every field sent is', async (t) => {
  const first = keyed(4, 'c', { metadata: { x: 1, y: [1, 2] } }, { timestampGiven: false });
  const [id] = await insertKeyedEvents(sql, [first], NOW);
  const later = { timestamp: NOW + 60_000, receivedAt: NOW + 60_000 };
  const retry = keyed(
    4,
    'c',
    { ...later, metadata: { x: 1, y: [1, 2] } },
    { timestampGiven: false },
  );
  t.same((await insertKeyedEvents(sql, [retry], NOW + 60_000))[0], {
    kind: 'repeat',
    id,
    timestamp: NOW + 4,
  });
  const changes: Partial<NewEvent>[] = [
    { eventType: 'other' },
    { source: 'other' },
    { userId: 'u' },
    { sessionId: 's' },
    { severity: 'ERROR' },
    { tags: { a: 'b' } },
    { metadata: { x: 1, y: [1, 2, 3] } },
    // Compared as sent: a resend keeps the order of keys, a re-serialised object may not.
    { metadata: { y: [1, 2], x: 1 } },
  ];
  for (const change of changes) {
    const other = keyed(
      4,
      'c',
      { ...later, metadata: first.metadata, ...change },
      { timestampGiven: false },
    );
    t.same(
      (await insertKeyedEvents(sql, [other], NOW))[0],
      { kind: 'key-reused', id },
      JSON.stringify(change),
    );
  }
});

void t.test(
  'a batch: keys repeated inside it, events without keys, outcomes in order',
  async (t) => {
    const before = await stored(db);
    const batch = [
      keyed(10, 'd'),
      { ...newEvent(11), timestamp: NOW, receivedAt: NOW },
      keyed(10, 'd'),
      keyed(12, 'e'),
      keyed(13, 'd'),
      { ...newEvent(14), timestamp: NOW, receivedAt: NOW },
    ];
    const outcomes = await insertKeyedEvents(sql, batch, NOW);
    const [d, plain, dAgain, e, dOther, plain2] = outcomes;
    t.type(d, 'number');
    t.type(plain, 'number');
    t.type(e, 'number');
    t.type(plain2, 'number');
    t.same(dAgain, { kind: 'repeat', id: d, timestamp: NOW + 10 });
    t.same(dOther, { kind: 'key-reused', id: d });
    t.equal(new Set([d, plain, e, plain2]).size, 4);
    t.same(await stored(db), { rows: before.rows + 4, counted: before.counted + 4 });
    const [row] = await sql<
      { metadata: unknown }[]
    >`SELECT metadata FROM events WHERE id = ${d as number}`;
    t.same(row?.metadata, { i: 10 }, 'the first of the repeated items is the one stored');
  },
);

void t.test('a batch of repeats only stores nothing and counts nothing', async (t) => {
  await insertKeyedEvents(sql, [keyed(20, 'f'), keyed(21, 'g')], NOW);
  const before = await stored(db);
  const outcomes = await insertKeyedEvents(sql, [keyed(21, 'g'), keyed(20, 'f')], NOW);
  t.match(outcomes, [{ kind: 'repeat' }, { kind: 'repeat' }]);
  t.same(await stored(db), before);
});

void t.test("producers' keys never meet", async (t) => {
  const [one] = await insertKeyedEvents(sql, [keyed(30, 'h', {}, { producer: 1 })], NOW);
  const [two] = await insertKeyedEvents(sql, [keyed(31, 'h', {}, { producer: 2 })], NOW);
  t.type(one, 'number');
  t.type(two, 'number', 'the same key of another producer is its own');
  t.equal(await keyRows('h'), 2);
});

/** Resolves once some session waits for a lock (a repeat's claim behind an uncommitted first). */
async function someoneWaitsForALock(): Promise<void> {
  for (;;) {
    const rows = await watcher`
      SELECT 1 FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`;
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

for (const end of ['commit', 'rollback'] as const) {
  void t.test(`a repeat waits for an uncommitted first, then follows its ${end}`, async (t) => {
    const key = `wait-${end}`;
    let release = (): void => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let claimed = (_id: unknown): void => {};
    const firstClaimed = new Promise<unknown>((resolve) => (claimed = resolve));
    const first = sql
      .begin(async (tx) => {
        const [id] = await insertKeyedEvents(tx, [keyed(40, key)], NOW);
        claimed(id);
        await held;
        if (end === 'rollback') throw new Error('rolled back');
      })
      .catch((error: unknown) => claimed(error));
    const firstId = await firstClaimed;
    t.type(firstId, 'number', 'the first holds its key, uncommitted');
    const repeat = insertKeyedEvents(sql, [keyed(40, key)], NOW);
    await someoneWaitsForALock();
    release();
    await first;
    const [outcome] = await repeat;
    if (end === 'commit') t.same(outcome, { kind: 'repeat', id: firstId, timestamp: NOW + 40 });
    else t.type(outcome, 'number', 'the first rolled back: the repeat is stored');
    t.equal(await keyRows(key), 1);
  });
}

void t.test('pruning: only keys past the window at `now`, at most `limit` per call', async (t) => {
  const at = NOW + 1000 * HOUR;
  await pruneIdempotencyKeys(sql, at, 1000); // the keys of the tests above
  const late = { receivedAt: at };
  await insertKeyedEvents(
    sql,
    [keyed(50, 'p1', late), keyed(51, 'p2', late), keyed(52, 'p3', late)],
    at,
  );
  t.equal(await pruneIdempotencyKeys(sql, pruneBefore(at + 23 * HOUR, 24), 10), 0, 'in window');
  const before = await keyRows('p1');
  t.equal(before, 1);
  t.equal(await pruneIdempotencyKeys(sql, pruneBefore(at + 25 * HOUR, 24), 2), 2, 'a chunk');
  t.equal(await pruneIdempotencyKeys(sql, pruneBefore(at + 25 * HOUR, 24), 1000), 1, 'the rest');
  const [left] = await sql<{ n: number }[]>`
    SELECT count(*)::int4 AS n FROM idempotency_keys WHERE key IN ('p1', 'p2', 'p3')`;
  t.equal(left?.n, 0);
  const [again] = await insertKeyedEvents(sql, [keyed(50, 'p1', late)], at);
  t.type(again, 'number', 'a key past its window is stored anew');
});
