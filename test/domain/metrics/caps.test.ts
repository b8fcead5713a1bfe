import t from 'tap';
import { DEFAULT_METRICS_LIMITS } from '../../../src/domain/metrics/metrics-limits.ts';
import { HyperLogLog, hashString } from '../../../src/domain/metrics/state/hyperloglog.ts';
import { HOUR, MINUTE, SECOND, T0, event, newAggregator } from './fixtures.ts';

const sum = (map: Readonly<Record<string, number>>): number =>
  Object.values(map).reduce((a, b) => a + b, 0);

void t.test('defaults are documented numbers', (t) => {
  t.same(DEFAULT_METRICS_LIMITS, {
    maxEventTypes: 1000,
    maxSources: 1000,
    maxTrackedUsers: 100_000,
  });
  const { aggregator } = newAggregator();
  t.same(aggregator.limits, DEFAULT_METRICS_LIMITS);
  t.end();
});

void t.test('past maxEventTypes / maxSources new keys count under (other)', (t) => {
  const { aggregator, clock } = newAggregator({ maxEventTypes: 3, maxSources: 2 });
  clock.set(T0 + MINUTE);
  const types = ['a', 'b', 'c', 'd', 'e', 'a', 'd'];
  aggregator.record(
    types.map((eventType, i) =>
      event(T0, {
        eventType,
        source: `s${i % 4}`,
        severity: eventType === 'e' || eventType === 'a' ? 'ERROR' : 'INFO',
        latencyMs: i,
      }),
    ),
  );
  const snapshot = aggregator.snapshot();
  t.same(snapshot.eventsByType, { a: 2, b: 1, c: 1, '(other)': 3 });
  t.same(snapshot.eventsBySource, { s0: 2, s1: 2, '(other)': 3 });
  t.equal(sum(snapshot.eventsByType), snapshot.summary.totalEvents);
  t.equal(sum(snapshot.eventsBySource), snapshot.summary.totalEvents);
  t.equal(snapshot.summary.uniqueEventTypes, 4);
  t.equal(snapshot.summary.uniqueSources, 3);
  t.same(snapshot.errorMetrics.errorsByType, { a: 2, '(other)': 1 });
  t.equal(sum(snapshot.errorMetrics.errorsByType), snapshot.errorMetrics.totalErrors);
  t.same(Object.keys(snapshot.latencyMetrics.byType).sort(), ['(other)', 'a', 'b', 'c']);
  t.same(snapshot.latencyMetrics.byType['(other)'], {
    p50: 4,
    p95: 6,
    p99: 6,
    avg: (3 + 4 + 6) / 3,
  });

  t.equal(aggregator.value({ kind: 'indexed', map: 'eventsByType', key: '(other)' }, 5), 3);
  t.equal(aggregator.value({ kind: 'indexed', map: 'eventsByType', key: 'd' }, 5), 0);
  t.equal(aggregator.hasKey('eventsByType', 'd'), true, 'used, though counted under (other)');
  t.equal(aggregator.hasKey('eventsByType', 'zzz'), false);
  t.equal(aggregator.value({ kind: 'scalar', name: 'uniqueEventTypes' }, 5), 4);
  t.end();
});

void t.test('keys that left the 24 h free their place under the cap', (t) => {
  const { aggregator, clock } = newAggregator({ maxEventTypes: 2 });
  aggregator.record([event(T0, { eventType: 'a' }), event(T0, { eventType: 'b' })]);
  clock.set(T0 + 12 * HOUR);
  aggregator.record([event(T0 + 12 * HOUR, { eventType: 'c' })]);
  t.same(aggregator.snapshot().eventsByType, { a: 1, b: 1, '(other)': 1 });
  clock.set(T0 + 24 * HOUR + MINUTE);
  aggregator.record([event(T0 + 24 * HOUR + MINUTE, { eventType: 'd' })]);
  t.same(aggregator.snapshot().eventsByType, { '(other)': 1, d: 1 });
  t.equal(aggregator.hasKey('eventsByType', 'a'), true, 'still used since start');
  t.end();
});

void t.test('uniqueUsers is exact up to maxTrackedUsers, a HyperLogLog estimate past it', (t) => {
  const { aggregator, clock } = newAggregator({ maxTrackedUsers: 100 });
  clock.set(T0 + 10 * MINUTE);
  aggregator.record(
    [...Array(100).keys()].map((i) => event(T0 + i * SECOND, { userId: `user-${i}` })),
  );
  t.equal(aggregator.snapshot().summary.uniqueUsers, 100, 'exact at the cap');
  t.equal(aggregator.snapshot().topUsers.length, 10);

  const users = 5000;
  aggregator.record(
    [...Array(users).keys()].map((i) => event(T0 + 2 * MINUTE, { userId: `user-${i}` })),
  );
  const estimate = aggregator.snapshot().summary.uniqueUsers;
  t.ok(Math.abs(estimate - users) / users < 0.05, `estimate ${estimate} within 5 % of ${users}`);
  t.equal(aggregator.value({ kind: 'scalar', name: 'uniqueUsers' }, 60), estimate);

  // Once every forgotten user has left the 24 h, the count is exact again.
  clock.set(T0 + 25 * HOUR);
  aggregator.record([
    event(T0 + 25 * HOUR, { userId: 'late-1' }),
    event(T0 + 25 * HOUR, { userId: 'late-2' }),
  ]);
  t.equal(aggregator.snapshot().summary.uniqueUsers, 2);
  t.end();
});

void t.test('a busy user stays tracked past the user cap', (t) => {
  const { aggregator, clock } = newAggregator({ maxTrackedUsers: 50 });
  clock.set(T0 + 10 * MINUTE);
  for (let round = 0; round < 20; round++) {
    aggregator.record([
      event(T0 + round * SECOND, { userId: 'busy' }),
      ...[...Array(10).keys()].map((i) =>
        event(T0 + round * SECOND, { userId: `once-${round}-${i}` }),
      ),
    ]);
  }
  const [top] = aggregator.snapshot().topUsers;
  t.same(top && { userId: top.userId, eventCount: top.eventCount }, {
    userId: 'busy',
    eventCount: 20,
  });
  t.end();
});

void t.test('HyperLogLog: merge is a union; large sets within 3 standard errors', (t) => {
  const a = new HyperLogLog();
  const b = new HyperLogLog();
  for (let i = 0; i < 20_000; i++) a.addHash(hashString(`a-${i}`));
  for (let i = 0; i < 20_000; i++) b.addHash(hashString(i < 10_000 ? `a-${i}` : `b-${i}`));
  t.ok(Math.abs(a.estimate() - 20_000) / 20_000 < 0.05, `a ${a.estimate()}`);
  a.merge(b);
  t.ok(Math.abs(a.estimate() - 30_000) / 30_000 < 0.05, `a ∪ b ${a.estimate()}`);
  const small = new HyperLogLog();
  for (let i = 0; i < 20; i++) small.addHash(hashString(`u${i}`));
  t.equal(Math.round(small.estimate()), 20, 'linear counting is exact for small sets');
  t.not(hashString('ab'), hashString('ba'));
  t.end();
});
