// GCRA per key, on a clock the test moves: a second's worth at once, then the rate; a charge
// larger than a second's worth passes when the allowance is full and is paid back after.
import t from 'tap';
import { createRateLimiter } from '../../src/auth/rate-limit.ts';

t.test('a burst of one second, then the rate', async (t) => {
  const limiter = createRateLimiter(10);
  for (let i = 0; i < 10; i++) t.equal(limiter.take(1, 1000), 0, `request ${i + 1} of the burst`);
  t.equal(limiter.take(1, 1000), 100, 'the 11th waits one interval');
  t.equal(limiter.take(1, 1099), 1, 'still 1 ms early');
  t.equal(limiter.take(1, 1100), 0, 'allowed after one interval');
  t.ok(limiter.take(1, 1100) > 0, 'and the next waits again');
});

t.test('a large charge passes on a full allowance, then is paid back', async (t) => {
  const limiter = createRateLimiter(100);
  t.equal(limiter.take(1000, 0), 0, 'a batch of 1000 on a full allowance');
  const wait = limiter.take(1, 0);
  t.equal(wait, 9010, 'the next waits until the debt is paid (9 s) plus one interval');
  t.equal(limiter.take(1, 9010), 0);
});

t.test('a rate below 1/s allows one at a time', async (t) => {
  const limiter = createRateLimiter(0.01);
  t.equal(limiter.take(1, 0), 0);
  t.equal(limiter.take(1, 0), 100_000, 'one per 100 s');
  t.equal(limiter.take(1, 100_000), 0);
});
