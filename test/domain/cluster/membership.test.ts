import t from 'tap';
import { batchSeqOf } from '../../../src/domain/cluster/batch-seq.ts';
import { ClusterMembership, GRACE_MS, STALE_MS } from '../../../src/domain/cluster/membership.ts';

const seq = batchSeqOf;

t.test('own batches of this incarnation are skipped; earlier ones count once', async (t) => {
  const m = new ClusterMembership('a', 2);
  t.equal(m.accept('a', seq(2, 1), 0), 'own');
  t.equal(m.accept('a', seq(1, 1), 0), 'new', 'a previous incarnation of this instance');
  t.equal(m.accept('a', seq(1, 1), 0), 'repeat');
  t.equal(m.accept('b', seq(1, 1), 0), 'new');
  t.equal(m.accept('b', seq(1, 1), 0), 'repeat');
});

t.test('complete only while streaming, and with every live peer caught up', async (t) => {
  const m = new ClusterMembership('a', 1);
  m.alive(
    [
      { id: 'a', incarnation: 1 },
      { id: 'b', incarnation: 1 },
    ],
    0,
  );
  m.heartbeat('b', { lastSeq: seq(1, 2) }, 0);
  t.same(m.view(0, false), { instances: ['a', 'b'], complete: false }, 'not streaming');
  t.equal(m.view(0, true).complete, true, 'within the grace, b is not yet behind');
  t.equal(m.view(GRACE_MS + 1, true).complete, false, "past the grace b's batches are missing");
  m.accept('b', seq(1, 2), GRACE_MS + 2);
  t.equal(m.view(GRACE_MS + 2, true).complete, false, 'a hole: batch 1');
  m.accept('b', seq(1, 1), GRACE_MS + 3);
  m.heartbeat('b', { lastSeq: seq(1, 2) }, GRACE_MS + 3);
  t.same(m.view(GRACE_MS + 3, true), { instances: ['a', 'b'], complete: true });
});

t.test(
  'a peer alive in PostgreSQL but silent on the broker makes the view incomplete',
  async (t) => {
    const m = new ClusterMembership('a', 1);
    m.alive([{ id: 'b', incarnation: 1 }], 0);
    t.equal(m.view(0, true).complete, true, 'just started: given time');
    m.alive([{ id: 'b', incarnation: 1 }], STALE_MS + 1);
    t.equal(m.view(STALE_MS + 1, true).complete, false);
  },
);

t.test('a dead peer (gone from PostgreSQL, silent) does not hold the view back', async (t) => {
  const m = new ClusterMembership('a', 1);
  m.heartbeat('b', { lastSeq: seq(1, 5) }, 0);
  m.alive([], STALE_MS + 1);
  t.equal(m.view(STALE_MS + GRACE_MS + 2, true).complete, true);
});

t.test("a restarted peer: its dead incarnation's holes are not waited for", async (t) => {
  const m = new ClusterMembership('a', 1);
  m.accept('b', seq(1, 1), 0);
  m.accept('b', seq(1, 3), 0);
  const later = GRACE_MS + 1;
  m.alive([{ id: 'b', incarnation: 2 }], later);
  m.heartbeat('b', { lastSeq: seq(2, 0) }, later);
  t.equal(m.view(later, true).complete, true);
});
