import t from 'tap';
import { MAX_EARLY, ReceivedBatches } from '../../../src/domain/cluster/received-batches.ts';

t.test('in order, out of order, repeats', async (t) => {
  const r = new ReceivedBatches();
  t.ok(r.accept(1));
  t.ok(r.accept(3), 'early');
  t.equal(r.prefix, 1);
  t.equal(r.high, 3);
  t.notOk(r.accept(3), 'an early one repeated');
  t.notOk(r.accept(1), 'one below the prefix repeated');
  t.ok(r.accept(2), 'the hole fills');
  t.equal(r.prefix, 3, 'the prefix jumps over what came early');
});

t.test('memory is bounded: past MAX_EARLY the oldest hole is given up', async (t) => {
  const r = new ReceivedBatches();
  for (let n = 2; n <= MAX_EARLY + 2; n++) r.accept(n);
  t.equal(r.prefix, MAX_EARLY + 2, 'batch 1 given up, everything after it counted');
  t.equal(r.givenUp, 1);
  t.notOk(r.accept(1), 'a given-up batch arriving late is not counted');
});
