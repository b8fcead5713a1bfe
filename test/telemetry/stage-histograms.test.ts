// Stage histograms: durations in ms kept per stage, bounded; percentiles never past the largest
// value; below zero (two threads' clocks) counts as zero, past 60 s as 60 s; reset empties.
import t from 'tap';
import { createStageHistograms, epochNow } from '../../src/telemetry/stage-histograms.ts';

t.test('each stage keeps its own durations; percentiles stay within the values', async (t) => {
  const h = createStageHistograms(['a', 'b'] as const);
  for (let i = 1; i <= 100; i++) h.record('a', i * 0.1);
  h.record('b', 2.5);
  const s = h.summary();
  t.equal(s.a.count, 100);
  t.ok(Math.abs(s.a.p50Ms - 5) < 0.01, `p50 ${s.a.p50Ms}`);
  t.ok(Math.abs(s.a.p99Ms - 9.9) < 0.01, `p99 ${s.a.p99Ms}`);
  t.ok(Math.abs(s.a.maxMs - 10) < 0.01, `max ${s.a.maxMs}`);
  t.same(s.b, { count: 1, p50Ms: s.b.maxMs, p99Ms: s.b.maxMs, maxMs: s.b.maxMs });
  t.ok(s.b.maxMs <= 2.5 + 0.01 && s.b.maxMs >= 2.5 - 0.01);
});

t.test('out of range: below zero is zero, past 60 s is 60 s; reset empties', async (t) => {
  const h = createStageHistograms(['x'] as const);
  h.record('x', -0.02);
  h.record('x', 3_600_000);
  const s = h.summary().x;
  t.equal(s.count, 2);
  t.equal(s.p50Ms, 0);
  t.ok(s.maxMs >= 59_900 && s.maxMs <= 60_100, `max ${s.maxMs}`);
  h.reset();
  t.same(h.summary().x, { count: 0, p50Ms: 0, p99Ms: 0, maxMs: 0 });
});

t.test('epochNow is epoch ms, with sub-millisecond resolution', async (t) => {
  const before = Date.now();
  const now = epochNow();
  t.ok(Math.abs(now - before) < 1000, 'close to Date.now()');
});
