import t from 'tap';
import {
  MAX_INCARNATION,
  batchSeqOf,
  messageIdOf,
  parseMessageId,
  positionOf,
} from '../../../src/domain/cluster/batch-seq.ts';

t.test('sequence numbers round-trip, exactly, up to the last incarnation', async (t) => {
  for (const [incarnation, number] of [
    [1, 1],
    [7, 123_456],
    [MAX_INCARNATION, 2 ** 32 - 1],
  ] as const) {
    const seq = batchSeqOf(incarnation, number);
    t.ok(Number.isSafeInteger(seq));
    t.same(positionOf(seq), { incarnation, number });
    t.same(parseMessageId(messageIdOf('host-1_a', seq)), { instanceId: 'host-1_a', seq });
  }
});

t.test('ids that are not ours are refused', async (t) => {
  for (const id of ['', 'x', ':5', 'a:', 'a:b', 'a:-1', `a:${batchSeqOf(3, 0)}`])
    t.equal(parseMessageId(id), null, JSON.stringify(id));
});
