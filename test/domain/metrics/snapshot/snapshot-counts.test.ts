import t from 'tap';
import { HOUR, MINUTE, SECOND, T0, event, events, newAggregator, nonFinite } from '../fixtures.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

void t.test('with no data every number is 0 and peakTimestamp is the start time', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + 90 * SECOND);
  const snapshot = aggregator.snapshot();
  t.same(nonFinite(snapshot), []);
  t.same(snapshot.summary, {
    totalEvents: 0,
    eventsPerSecond: 0,
    avgLatency: 0,
    errorRate: 0,
    uniqueUsers: 0,
    uniqueSources: 0,
    uniqueEventTypes: 0,
  });
  t.same(snapshot.eventsBySeverity, { INFO: 0, WARNING: 0, ERROR: 0, CRITICAL: 0 });
  t.same(snapshot.eventsByType, {});
  t.same(snapshot.eventsBySource, {});
  t.same(snapshot.latencyMetrics, {
    overall: { p50: 0, p95: 0, p99: 0, avg: 0, min: 0, max: 0, sampleCount: 0 },
    byType: {},
    bySource: {},
  });
  t.same(snapshot.errorMetrics, {
    totalErrors: 0,
    errorRate: 0,
    errorsByType: {},
    errorsBySource: {},
  });
  t.same(snapshot.throughput, {
    current: 0,
    peak: 0,
    peakTimestamp: iso(T0),
    avg: 0,
    trend: 'stable',
  });
  const empty = { events: 0, avgLatency: 0, errorRate: 0 };
  t.same(snapshot.timeWindows, { last5Minutes: empty, last15Minutes: empty, last1Hour: empty });
  t.same(snapshot.topUsers, []);
  t.end();
});

void t.test('counts, maps, error rate and average latency over the 24 h', (t) => {
  const { aggregator, clock } = newAggregator();
  const at = T0 + 10 * SECOND;
  aggregator.record([
    event(at, { eventType: 'a', source: 's1', severity: 'INFO', latencyMs: 10 }),
    event(at, { eventType: 'a', source: 's1', severity: 'INFO', latencyMs: 20 }),
    event(at, { eventType: 'a', source: 's1', severity: 'WARNING', latencyMs: 30 }),
    event(at, { eventType: 'a', source: 's1', severity: 'ERROR', latencyMs: 40 }),
    event(at, { eventType: 'b', source: 's1', severity: 'CRITICAL', latencyMs: 50 }),
    event(at, { eventType: 'b', source: 's2', severity: 'INFO', latencyMs: 60, userId: 'u1' }),
    event(at, { eventType: 'b', source: 's2', severity: 'ERROR', latencyMs: 70, userId: 'u2' }),
    event(at, { eventType: 'b', source: 's2', severity: 'INFO', latencyMs: 80, userId: 'u1' }),
  ]);
  clock.set(T0 + 20 * SECOND);
  const snapshot = aggregator.snapshot();
  t.equal(snapshot.summary.totalEvents, 8);
  t.equal(snapshot.summary.errorRate, (100 * 3) / 8);
  t.equal(snapshot.summary.avgLatency, 45);
  t.equal(snapshot.summary.uniqueUsers, 2);
  t.equal(snapshot.summary.uniqueEventTypes, 2);
  t.equal(snapshot.summary.uniqueSources, 2);
  t.same(snapshot.eventsByType, { a: 4, b: 4 });
  t.same(snapshot.eventsBySource, { s1: 5, s2: 3 });
  t.same(snapshot.eventsBySeverity, { INFO: 4, WARNING: 1, ERROR: 2, CRITICAL: 1 });
  t.same(snapshot.errorMetrics, {
    totalErrors: 3,
    errorRate: 37.5,
    errorsByType: { a: 1, b: 2 },
    errorsBySource: { s1: 2, s2: 1 },
  });
  t.end();
});

void t.test('an error rate is not rounded', (t) => {
  const { aggregator } = newAggregator();
  aggregator.record([...events(2, T0), event(T0, { severity: 'CRITICAL' })]);
  t.equal(aggregator.snapshot().summary.errorRate, 100 / 3);
  t.end();
});

void t.test(
  'counts follow receivedAt: a future receivedAt counts now, one older than 24 h not at all',
  (t) => {
    const { aggregator, clock } = newAggregator();
    clock.set(T0 + 25 * HOUR);
    aggregator.record([
      event(T0 + 25 * HOUR + 5 * MINUTE), // in the future: counted in the current minute
      event(T0), // 25 h old: outside the retention
      event(T0 + 2 * HOUR), // 23 h old
    ]);
    const snapshot = aggregator.snapshot();
    t.equal(snapshot.summary.totalEvents, 2);
    t.equal(snapshot.timeWindows.last5Minutes.events, 1);
    t.end();
  },
);

void t.test('time windows: the current partial minute plus the N-1 before it', (t) => {
  const { aggregator, clock } = newAggregator({}, T0 - HOUR);
  const now = T0 + 10 * MINUTE - 500; // 10:09:59.500: last5Minutes = 10:05:00 .. now
  clock.set(now);
  aggregator.record([
    event(now - (4 * MINUTE + 59 * SECOND), { latencyMs: 100, severity: 'ERROR' }), // 4:59 old: in
    event(now - (5 * MINUTE + 1 * SECOND), { latencyMs: 300 }), // 5:01 old: out of 5, in 15
    event(now - 16 * MINUTE, { latencyMs: 500 }), // out of 15, in 1 h
    event(now - 30 * SECOND, { latencyMs: 20 }),
  ]);
  const { timeWindows } = aggregator.snapshot();
  t.same(timeWindows.last5Minutes, { events: 2, avgLatency: 60, errorRate: 50 });
  t.same(timeWindows.last15Minutes, { events: 3, avgLatency: 140, errorRate: 100 / 3 });
  t.same(timeWindows.last1Hour, { events: 4, avgLatency: 230, errorRate: 25 });

  // Windows are whole minutes: one second later the 10:05 minute is the oldest of six.
  clock.set(T0 + 10 * MINUTE + 500);
  const later = aggregator.snapshot().timeWindows;
  t.equal(later.last5Minutes.events, 1, 'the 10:05:00.5 event left last5Minutes at 10:10');
  t.equal(later.last15Minutes.events, 3);
  t.equal(later.last1Hour.events, 4);
  t.end();
});

void t.test('minutes older than 24 h fall away, keys and users with them', (t) => {
  const { aggregator, clock } = newAggregator();
  aggregator.record([
    event(T0, { eventType: 'old', source: 'old-src', userId: 'u-old', latencyMs: 500 }),
    event(T0 + 30 * SECOND, { eventType: 'old', severity: 'ERROR', latencyMs: 700 }),
  ]);
  clock.set(T0 + HOUR);
  aggregator.record([event(T0 + HOUR, { eventType: 'new', userId: 'u-new', latencyMs: 5 })]);

  clock.set(T0 + 24 * HOUR - 1); // 09:59:59.999 the next day: the 10:00 minute is the oldest kept
  t.equal(aggregator.snapshot().summary.totalEvents, 3);

  clock.set(T0 + 24 * HOUR);
  const snapshot = aggregator.snapshot();
  t.equal(snapshot.summary.totalEvents, 1);
  t.same(snapshot.eventsByType, { new: 1 });
  t.same(snapshot.eventsBySource, { web: 1 });
  t.same(snapshot.eventsBySeverity, { INFO: 1, WARNING: 0, ERROR: 0, CRITICAL: 0 });
  t.same(snapshot.errorMetrics.errorsByType, {});
  t.equal(snapshot.errorMetrics.totalErrors, 0);
  t.equal(snapshot.summary.uniqueUsers, 1);
  t.same(
    snapshot.topUsers.map((u) => u.userId),
    ['u-new'],
  );
  t.same(Object.keys(snapshot.latencyMetrics.byType), ['new']);
  t.equal(snapshot.latencyMetrics.overall.sampleCount, 1);
  t.equal(snapshot.latencyMetrics.overall.max, 5);
  t.equal(snapshot.summary.avgLatency, 5);

  clock.set(T0 + 26 * HOUR);
  const empty = aggregator.snapshot();
  t.equal(empty.summary.totalEvents, 0);
  t.equal(empty.summary.uniqueUsers, 0);
  t.equal(empty.summary.uniqueEventTypes, 0);
  t.same(empty.topUsers, []);
  t.equal(empty.latencyMetrics.overall.sampleCount, 0);
  t.equal(empty.throughput.peak, 0);
  t.equal(empty.throughput.peakTimestamp, iso(T0));
  t.same(nonFinite(empty), []);

  // A key that left the 24 h counts from zero when it comes back.
  aggregator.record([event(T0 + 26 * HOUR, { eventType: 'old' })]);
  t.same(aggregator.snapshot().eventsByType, { old: 1 });
  t.end();
});

void t.test('a jump of days empties every total at once', (t) => {
  const { aggregator, clock } = newAggregator({ maxEventTypes: 1 });
  aggregator.record([
    event(T0, { eventType: 'a', severity: 'ERROR', userId: 'u' }),
    event(T0, { eventType: 'b' }),
  ]);
  clock.set(T0 + 72 * HOUR);
  const snapshot = aggregator.snapshot();
  t.equal(snapshot.summary.totalEvents, 0);
  t.equal(snapshot.errorMetrics.totalErrors, 0);
  t.same(snapshot.eventsByType, {});
  t.same(snapshot.eventsBySeverity, { INFO: 0, WARNING: 0, ERROR: 0, CRITICAL: 0 });
  aggregator.record([event(T0 + 72 * HOUR, { eventType: 'c' })]);
  t.same(aggregator.snapshot().eventsByType, { c: 1 }, 'the cap has room again');
  t.end();
});

void t.test('reset zeroes everything, peak included; peakTimestamp becomes the reset time', (t) => {
  const { aggregator, clock } = newAggregator();
  aggregator.record([
    ...events(5, T0 + 2 * SECOND, { userId: 'u1', severity: 'ERROR', eventType: 'x' }),
  ]);
  clock.set(T0 + 5 * MINUTE);
  t.equal(aggregator.snapshot().throughput.peak, 5);
  aggregator.reset();
  const snapshot = aggregator.snapshot();
  t.same(nonFinite(snapshot), []);
  t.equal(snapshot.summary.totalEvents, 0);
  t.equal(snapshot.summary.uniqueUsers, 0);
  t.same(snapshot.eventsByType, {});
  t.same(snapshot.topUsers, []);
  t.equal(snapshot.latencyMetrics.overall.sampleCount, 0);
  t.same(snapshot.throughput, {
    current: 0,
    peak: 0,
    peakTimestamp: iso(T0 + 5 * MINUTE),
    avg: 0,
    trend: 'stable',
  });
  t.equal(aggregator.hasKey('eventsByType', 'x'), false);
  t.equal(aggregator.hasKey('eventsBySeverity', 'ERROR'), false);

  aggregator.record([event(T0 + 5 * MINUTE, { eventType: 'y' })]);
  t.same(aggregator.snapshot().eventsByType, { y: 1 });
  t.end();
});

void t.test('rejects caps that are not positive integers', (t) => {
  t.throws(() => newAggregator({ maxEventTypes: 0 }), TypeError);
  t.throws(() => newAggregator({ maxSources: 1.5 }), TypeError);
  t.throws(() => newAggregator({ maxTrackedUsers: -1 }), TypeError);
  t.end();
});
