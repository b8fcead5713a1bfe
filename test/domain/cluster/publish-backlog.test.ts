import t from 'tap';
import { natsLagOf } from '../../../src/domain/cluster/nats-lag.ts';
import { MAX_WINDOW, PublishBacklog } from '../../../src/domain/cluster/publish-backlog.ts';

/** [pending batches, age of the oldest in ms] at `now`. */
const state = (b: PublishBacklog, now: number): [number, number] => [b.pending, b.oldestAgeMs(now)];

t.test('a batch is pending from its commit to its first acknowledgement', async (t) => {
  const b = new PublishBacklog();
  t.equal(b.pending, 0);
  t.equal(b.oldestAgeMs(5_000), 0, 'nothing pending: 0');
  b.committed(1, 1_000);
  b.committed(2, 1_500);
  b.committed(3, 2_000);
  t.equal(b.pending, 3);
  t.equal(b.oldestAgeMs(5_000), 4_000, 'the oldest one decides');
  b.acknowledged(1);
  t.equal(b.oldestAgeMs(5_000), 3_500);
  b.acknowledged(3);
  b.acknowledged(3);
  t.equal(b.pending, 1, 'a repeated acknowledgement is counted once');
  t.equal(b.oldestAgeMs(5_000), 3_500, 'batch 2 is still the oldest');
  b.acknowledged(2);
  b.acknowledged(1);
  t.same(state(b, 5_000), [0, 0], 'none pending');
  b.committed(2, 4_000);
  t.equal(b.pending, 0, 'a settled batch heard again is not pending');
});

t.test('acknowledged before its commit notice arrives: never pending', async (t) => {
  const b = new PublishBacklog();
  b.acknowledged(1);
  t.equal(b.pending, 0);
  b.committed(1, 1_000);
  t.same(state(b, 2_000), [0, 0], 'its commit notice arriving after');
  b.committed(2, 1_000);
  t.equal(b.pending, 1, 'the next one counts');
});

t.test('a number not decided yet holds nothing up', async (t) => {
  const b = new PublishBacklog();
  // Batch 1's transaction still runs (or failed and is not settled yet).
  for (let n = 2; n <= 5_000; n++) {
    b.committed(n, n);
    b.acknowledged(n);
  }
  t.same(state(b, 10_000), [0, 0]);
  b.committed(1, 6_000);
  t.same(state(b, 10_000), [1, 4_000]);
  b.acknowledged(1);
  t.equal(b.pending, 0);
});

t.test('a long outage: the window grows, then gives up the oldest past MAX_WINDOW', async (t) => {
  const b = new PublishBacklog();
  const total = MAX_WINDOW + 10;
  for (let n = 1; n <= total; n++) b.committed(n, n);
  t.equal(b.pending, MAX_WINDOW, 'the window is full');
  t.equal(b.givenUp, 10, 'the 10 oldest given up');
  t.equal(b.oldestAgeMs(total + 1), total + 1 - 11, 'batch 11 is the oldest counted');
  for (let n = total; n >= 1; n--) b.acknowledged(n);
  t.equal(b.pending, 0, 'every one acknowledged, the given-up ones ignored');
  t.equal(b.oldestAgeMs(total + 1), 0);
});

t.test('batches the outbox dropped (24 h) are given up', async (t) => {
  const b = new PublishBacklog();
  b.committed(1, 1_000);
  b.committed(2, 2_000);
  b.committed(3, 3_000);
  b.forgetCommittedBefore(2_500);
  t.equal(b.pending, 1);
  t.equal(b.givenUp, 2);
  t.equal(b.oldestAgeMs(4_000), 1_000);
});

t.test('natsLagOf: publishing and consuming', async (t) => {
  const b = new PublishBacklog();
  b.committed(1, 1_000);
  t.same(natsLagOf(b, { pending: 0, storedAtMs: 0 }, 3_500), {
    publishLagSeconds: 2.5,
    publishPendingBatches: 1,
    consumeLagSeconds: 0,
    consumePendingMessages: 0,
  });
  t.same(
    natsLagOf(b, { pending: 7, storedAtMs: 2_000 }, 3_500),
    {
      publishLagSeconds: 2.5,
      publishPendingBatches: 1,
      consumeLagSeconds: 1.5,
      consumePendingMessages: 7,
    },
    'messages pending after the last one read: its age',
  );
  t.equal(
    natsLagOf(b, { pending: 0, storedAtMs: 2_000 }, 3_500).consumeLagSeconds,
    0,
    'read to the end: not behind',
  );
  t.equal(
    natsLagOf(b, { pending: 3, storedAtMs: 4_000 }, 3_500).consumeLagSeconds,
    0,
    "the broker's clock ahead of this host's: never below 0",
  );
});
