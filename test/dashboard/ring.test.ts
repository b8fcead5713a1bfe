// The charts' fixed-size series (src/dashboard/web/ring.ts): it holds at most its capacity, drops
// the oldest point when full, keeps time order, and hands out views without copying.
import t from 'tap';
import { Ring } from '../../src/dashboard/web/ring.ts';

t.test('fills up to its capacity, then drops the oldest point for each new one', async (t) => {
  const ring = new Ring(3, 2);
  for (let second = 1; second <= 5; second++) ring.push([second, second * 10]);
  t.equal(ring.size, 3);
  const [time, value] = ring.view([0, 1]);
  t.same([...(time ?? [])], [3, 4, 5]);
  t.same([...(value ?? [])], [30, 40, 50]);
});

t.test(
  'a point not after the last one is dropped (history and pushes stay in order)',
  async (t) => {
    const ring = new Ring(10, 2);
    ring.push([100, 1]);
    ring.push([100, 2]);
    ring.push([99, 3]);
    ring.push([101, 4]);
    t.same([...(ring.view([1])[0] ?? [])], [1, 4]);
  },
);

t.test('views share the ring memory: nothing is allocated per point beyond the view', async (t) => {
  const ring = new Ring(4, 3);
  ring.push([1, 2, 3]);
  const [time] = ring.view([0]);
  ring.push([2, 5, 6]);
  t.equal(time?.length, 1, 'a view is of the points when it was taken');
  t.equal(ring.view([2])[0]?.buffer, ring.view([2])[0]?.buffer, 'one buffer per column');
});
