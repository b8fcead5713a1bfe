// TickStats: nearest-rank percentiles of the newest N ticks, wall and on-CPU time.
import t from 'tap';
import { KEEP_TICKS, TickStats } from '../../src/telemetry/tick-stats.ts';

void t.test('percentiles over the newest ticks only', (t) => {
  const stats = new TickStats();
  for (let ms = 1; ms <= 100; ms++) stats.add(ms, ms / 2);
  t.same(stats.summary(), {
    ticks: 100,
    p50Ms: 50,
    p99Ms: 99,
    maxMs: 100,
    onCpu: { p50Ms: 25, p99Ms: 49.5, maxMs: 50 },
  });
  t.same(stats.summary(10), {
    ticks: 100,
    p50Ms: 95,
    p99Ms: 100,
    maxMs: 100,
    onCpu: { p50Ms: 47.5, p99Ms: 50, maxMs: 50 },
  });
  t.end();
});

void t.test('the ring keeps the last 600; unknown CPU time gives no on-CPU summary', (t) => {
  const stats = new TickStats();
  for (let i = 0; i < KEEP_TICKS + 50; i++) stats.add(i < 50 ? 1000 : 1, 1);
  t.equal(stats.summary().maxMs, 1, 'the 50 oldest ticks fell out');
  t.equal(stats.summary().ticks, KEEP_TICKS + 50);
  stats.add(2, null);
  t.equal(stats.summary().onCpu, null);
  t.same(stats.summary(1), { ticks: KEEP_TICKS + 51, p50Ms: 2, p99Ms: 2, maxMs: 2, onCpu: null });
  t.end();
});

void t.test('no ticks yet: zeros', (t) => {
  t.same(new TickStats().summary(), {
    ticks: 0,
    p50Ms: 0,
    p99Ms: 0,
    maxMs: 0,
    onCpu: { p50Ms: 0, p99Ms: 0, maxMs: 0 },
  });
  t.end();
});
