// Cluster mode's SQL against PostgreSQL (issue 23): a batch commits with its outbox row (in its own
// statement, or in a transaction from what was really stored: an idempotent repeat adds an empty
// payload); a failed batch's number is filled by an empty row unless its own exists; instances
// register with a new incarnation per start and one live holder per id; the relay republishes and
// deletes only what was acknowledged.
import t from 'tap';
import { decodeBatch, decodeBatchWithIds } from '../../src/nats/batch-payload.ts';
import {
  deletePublished,
  heartbeat,
  outboxRows,
  registerInstance,
  relayOutbox,
  writeEmptyOutboxRows,
} from '../../src/db/cluster-repository.ts';
import { insertOutboxed } from '../../src/db/outboxed-insert.ts';
import { batchSeqOf } from '../../src/domain/cluster/batch-seq.ts';
import type { NewEvent } from '../../src/domain/event.ts';
import { createTestDatabase } from '../support/database.ts';
import { newEvent } from '../support/new-event.ts';

const { sql } = await createTestDatabase(t);
// newEvent() was received at 0: written 40 ms later.
const NOW = 40;
const seq = (n: number): number => batchSeqOf(1, n);
const rows = async (): Promise<{ seq: number; events: number }[]> =>
  (await outboxRows(sql, 'a', [seq(1), seq(2), seq(3), seq(4)])).map((row) => ({
    seq: row.seq,
    events: decodeBatch(row.payload).length,
  }));

t.test('a batch commits with its outbox row, holding what was stored', async (t) => {
  const batch = [newEvent(1), newEvent(2), newEvent(3)];
  const plain = await insertOutboxed(sql, batch, NOW, false, { instanceId: 'a', seq: seq(1) });
  t.equal(plain.outcomes.length, 3);
  t.same(decodeBatch(plain.payload), plain.stored, 'the payload is what the metrics count');
  // The statement appends the ids it drew to the row; the publish after COMMIT builds the same.
  const [row] = await outboxRows(sql, 'a', [seq(1)]);
  t.same(decodeBatchWithIds(row!.payload).ids, plain.outcomes, 'the row carries the stored ids');
  t.same(Buffer.from(row!.payload), Buffer.from(plain.payload), 'the published bytes are the row');
  const keyedEvent: NewEvent = {
    ...newEvent(4),
    idempotency: { producer: 0, key: 'k-1', timestampGiven: true },
  };
  const first = await insertOutboxed(sql, [keyedEvent], NOW, false, {
    instanceId: 'a',
    seq: seq(2),
  });
  t.equal(first.stored.length, 1);
  t.same(decodeBatchWithIds(first.payload).ids, first.outcomes, 'a keyed batch carries its ids');
  const repeat = await insertOutboxed(sql, [keyedEvent], NOW, true, {
    instanceId: 'a',
    seq: seq(3),
  });
  t.equal(repeat.stored.length, 0, 'a repeat stores nothing');
  t.same(decodeBatchWithIds(repeat.payload).ids, [], 'and marks nothing');
  t.same(await rows(), [
    { seq: seq(1), events: 3 },
    { seq: seq(2), events: 1 },
    { seq: seq(3), events: 0 },
  ]);
});

t.test("a failed batch's number: an empty row, unless its own exists", async (t) => {
  await writeEmptyOutboxRows(sql, 'a', [seq(1), seq(4)]);
  t.same(await rows(), [
    { seq: seq(1), events: 3 },
    { seq: seq(2), events: 1 },
    { seq: seq(3), events: 0 },
    { seq: seq(4), events: 0 },
  ]);
  const late = insertOutboxed(sql, [newEvent(9)], NOW, false, { instanceId: 'a', seq: seq(4) });
  await t.rejects(late, 'a COMMIT after the empty row fails whole');
});

t.test('the relay deletes what was acknowledged, and only that', async (t) => {
  const scope = { self: 'b', selfFrom: batchSeqOf(1, 1), olderThanMs: 0, ownAll: false, limit: 10 };
  const taken = await relayOutbox(sql, scope, async (records) => {
    await Promise.resolve();
    return records.filter((r) => r.seq !== seq(2));
  });
  t.equal(taken, 4);
  t.same(
    (await rows()).map((r) => r.seq),
    [seq(2)],
    'the one not acknowledged stays',
  );
  await deletePublished(sql, 'a', [seq(2)]);
  t.same(await rows(), []);
});

t.test('instances: an incarnation per start, one live holder per id', async (t) => {
  t.equal(await registerInstance(sql, 'x', 'host:1'), 1);
  t.equal(await registerInstance(sql, 'x', 'host:1'), 2, 'the same process again');
  t.match(await registerInstance(sql, 'x', 'host:2'), { holder: 'host:1' }, 'held by a live one');
  const beat = await heartbeat(sql, 'x', 'host:1');
  t.same(beat, { held: true, alive: [{ id: 'x', incarnation: 2 }] });
  t.equal((await heartbeat(sql, 'x', 'host:2')).held, false, 'not the holder');
  await sql`UPDATE instances SET last_seen = now() - interval '1 minute'`;
  t.equal(await registerInstance(sql, 'x', 'host:2'), 3, 'taken over once stale');
  await sql`UPDATE instances SET last_seen = now() - interval '1 minute'`;
  t.same((await heartbeat(sql, 'y', 'none')).alive, [], 'a minute old is not alive');
});
