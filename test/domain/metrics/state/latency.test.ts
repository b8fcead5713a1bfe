import fc from 'fast-check';
import t from 'tap';
import {
  LatencyWindow,
  nearestRankIndex,
} from '../../../../src/domain/metrics/state/latency-window.ts';
import { LATENCY_SAMPLES } from '../../../../src/domain/metrics/metrics-limits.ts';
import { MINUTE, SECOND, T0, event, newAggregator } from '../fixtures.ts';

const shuffled = (values: number[]): number[] => {
  // Deterministic shuffle (no Math.random in tests).
  const out = [...values];
  for (let i = out.length - 1; i > 0; i--) {
    const j = (i * 7919 + 13) % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
};

void t.test('nearest rank: rank ceil(p/100 * n), at least 1', (t) => {
  t.equal(nearestRankIndex(50, 10), 4);
  t.equal(nearestRankIndex(95, 10), 9);
  t.equal(nearestRankIndex(99, 10), 9);
  t.equal(nearestRankIndex(95, 13), 12, 'ceil(12.35) = 13');
  t.equal(nearestRankIndex(50, 1), 0);
  t.equal(nearestRankIndex(99, 1000), 989);
  t.end();
});

void t.test('a window matches a sort of the samples it holds (adds, evictions, drops)', (t) => {
  // Steps: a sample (value, minute) or a drop of the samples received before a minute.
  const step = fc.oneof(
    { weight: 20, arbitrary: fc.tuple(fc.integer({ min: 0, max: 60 }), fc.nat(30)) },
    { weight: 1, arbitrary: fc.nat(30) },
  );
  fc.assert(
    fc.property(fc.array(step, { maxLength: 2500, size: 'max' }), (steps) => {
      const window = new LatencyWindow();
      let kept: { value: number; minute: number }[] = [];
      for (const s of steps) {
        if (typeof s === 'number') {
          // Samples leave in arrival order, from the oldest while it is older than the minute.
          const firstKept = kept.findIndex((k) => k.minute >= s);
          kept = firstKept === -1 ? [] : kept.slice(firstKept);
          window.dropBefore(s);
        } else {
          kept.push({ value: s[0], minute: s[1] });
          if (kept.length > LATENCY_SAMPLES) kept.shift();
          window.add(s[0], s[1]);
        }
      }
      const sorted = kept.map((k) => k.value).sort((x, y) => x - y);
      const n = sorted.length;
      const expected =
        n === 0
          ? { p50: 0, p95: 0, p99: 0, avg: 0, min: 0, max: 0, sampleCount: 0 }
          : {
              p50: sorted[nearestRankIndex(50, n)],
              p95: sorted[nearestRankIndex(95, n)],
              p99: sorted[nearestRankIndex(99, n)],
              avg: kept.reduce((sum, k) => sum + k.value, 0) / n,
              min: sorted[0],
              max: sorted[n - 1],
              sampleCount: n,
            };
      t.same(window.stats(), expected);
    }),
    { numRuns: 200 },
  );
  t.end();
});

void t.test('overall, per type and per source stats on known samples', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + MINUTE);
  const latencies = shuffled([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  aggregator.record(
    latencies.map((latencyMs, i) =>
      event(T0 + i * SECOND, {
        latencyMs,
        eventType: latencyMs <= 5 ? 'low' : 'high',
        source: i % 2 === 0 ? 'even' : 'odd',
      }),
    ),
  );
  const { latencyMetrics } = aggregator.snapshot();
  t.same(latencyMetrics.overall, {
    p50: 5,
    p95: 10,
    p99: 10,
    avg: 5.5,
    min: 1,
    max: 10,
    sampleCount: 10,
  });
  t.same(latencyMetrics.byType, {
    low: { p50: 3, p95: 5, p99: 5, avg: 3 },
    high: { p50: 8, p95: 10, p99: 10, avg: 8 },
  });
  const even = latencies.filter((_, i) => i % 2 === 0).sort((a, b) => a - b);
  t.same(latencyMetrics.bySource['even'], {
    p50: even[2],
    p95: even[4],
    p99: even[4],
    avg: even.reduce((a, b) => a + b, 0) / 5,
  });
  t.end();
});

void t.test('13 samples: p95 is the 13th (nearest rank), not an interpolation', (t) => {
  const { aggregator } = newAggregator();
  aggregator.record(
    shuffled([...Array(13).keys()].map((i) => (i + 1) * 10)).map((l) =>
      event(T0, { latencyMs: l }),
    ),
  );
  const { overall } = aggregator.snapshot().latencyMetrics;
  t.same([overall.p50, overall.p95, overall.p99], [70, 130, 130]);
  t.end();
});

void t.test('only the last 1000 measurements count', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + MINUTE);
  const batch = shuffled([...Array(1000).keys()].map((i) => i + 1)); // 1..1000, shuffled
  aggregator.record(batch.map((latencyMs) => event(T0, { latencyMs, eventType: 'a' })));
  aggregator.record(
    [...Array(500).keys()].map((i) => event(T0 + 1000, { latencyMs: 1001 + i, eventType: 'a' })),
  );
  // The window now holds the last 500 of the shuffled batch plus 1001..1500.
  const kept = [...batch.slice(500), ...[...Array(500).keys()].map((i) => 1001 + i)].sort(
    (a, b) => a - b,
  );
  const { overall, byType } = aggregator.snapshot().latencyMetrics;
  t.equal(overall.sampleCount, 1000);
  t.equal(overall.p50, kept[499]);
  t.equal(overall.p95, kept[949]);
  t.equal(overall.p99, kept[989]);
  t.equal(overall.min, kept[0]);
  t.equal(overall.max, 1500);
  t.equal(overall.avg, kept.reduce((a, b) => a + b, 0) / 1000);
  t.same(byType['a'], { p50: kept[499], p95: kept[949], p99: kept[989], avg: overall.avg });
  // summary.avgLatency covers every event of the 24 h, not just the last 1000.
  t.equal(aggregator.snapshot().summary.avgLatency, (1500 * 1501) / 2 / 1500);
  t.end();
});

void t.test('stats follow new samples (cached stats are refreshed)', (t) => {
  const { aggregator } = newAggregator();
  aggregator.record([event(T0, { latencyMs: 10 })]);
  t.equal(aggregator.snapshot().latencyMetrics.overall.p99, 10);
  aggregator.record([event(T0, { latencyMs: 90 })]);
  const { overall } = aggregator.snapshot().latencyMetrics;
  t.same([overall.p50, overall.p99, overall.avg, overall.sampleCount], [10, 90, 50, 2]);
  t.end();
});
