import t from 'tap';
import type {
  MetricRef,
  ScalarMetric,
} from '../../../../src/domain/metrics/windows/metric-names.ts';
import { HOUR, MINUTE, SECOND, T0, event, newAggregator, tenMinuteScenario } from '../fixtures.ts';

const scalar = (name: ScalarMetric): MetricRef => ({ kind: 'scalar', name });

/**
 * now = 10:10:30. Window 5 = minutes 10:06..10:10, the window before it = 10:01..10:05.
 *   10:00:05  2 x a/s1 INFO 10 ms (u1)
 *   10:03:07  3 x b/s2 ERROR 30 ms (u2, u3, u3)                   previous window
 *   10:07:01  4 x a/s1 ERROR 100, ERROR 200, INFO 50, INFO 250 (u1, u4, -, -)
 *   10:10:10  c/s1 CRITICAL 40 ms (u5);  10:10:27  c/s2 INFO 60 ms
 */
function scenario() {
  const { aggregator, clock } = newAggregator();
  const now = T0 + 10 * MINUTE + 30 * SECOND;
  clock.set(now);
  aggregator.record(tenMinuteScenario());
  return aggregator;
}

void t.test('counts, rates and averages over the window and the window before it', (t) => {
  const aggregator = scenario();
  const both = (name: ScalarMetric, window = 5) => [
    aggregator.value(scalar(name), window),
    aggregator.previousValue(scalar(name), window),
  ];
  t.same(both('totalEvents'), [6, 3]);
  t.same(both('totalErrors'), [3, 3]);
  t.same(both('errorRate'), [50, 100]);
  t.same(both('avgLatency'), [700 / 6, 30]);
  t.same(both('totalEvents', 11), [11, 0]);
  t.same(both('errorRate', 20), [600 / 11, 0], 'an empty window reads 0');
  t.end();
});

void t.test('latency percentiles, min and max over the window (nearest rank)', (t) => {
  const aggregator = scenario();
  // window 5: 40, 50, 60, 100, 200, 250
  t.equal(aggregator.value(scalar('latencyP50'), 5), 60);
  t.equal(aggregator.value(scalar('latencyP95'), 5), 250);
  t.equal(aggregator.value(scalar('latencyP99'), 5), 250);
  t.equal(aggregator.value(scalar('latencyMin'), 5), 40);
  t.equal(aggregator.value(scalar('latencyMax'), 5), 250);
  t.equal(aggregator.previousValue(scalar('latencyP50'), 5), 30);
  t.equal(aggregator.previousValue(scalar('latencyMax'), 5), 30);
  t.equal(aggregator.previousValue(scalar('latencyP99'), 11), 0);
  t.end();
});

void t.test('unique users, types and sources over the window', (t) => {
  const aggregator = scenario();
  t.equal(aggregator.value(scalar('uniqueUsers'), 5), 3);
  t.equal(aggregator.previousValue(scalar('uniqueUsers'), 5), 2);
  t.equal(aggregator.value(scalar('uniqueUsers'), 11), 5);
  t.equal(aggregator.value(scalar('uniqueUsers'), 1440), aggregator.snapshot().summary.uniqueUsers);
  t.equal(aggregator.value(scalar('uniqueEventTypes'), 5), 2);
  t.equal(aggregator.previousValue(scalar('uniqueEventTypes'), 5), 1);
  t.equal(aggregator.value(scalar('uniqueSources'), 5), 2);
  t.equal(aggregator.previousValue(scalar('uniqueSources'), 5), 1);
  t.equal(aggregator.value(scalar('uniqueEventTypes'), 11), 3);
  t.end();
});

void t.test('throughput over the window', (t) => {
  const aggregator = scenario();
  // window 5 covers 10:06:00 .. now = 270 s; the one before 10:01 .. 10:06 = 300 s
  t.equal(aggregator.value(scalar('eventsPerSecond'), 5), 6 / 270);
  t.equal(aggregator.previousValue(scalar('eventsPerSecond'), 5), 3 / 300);
  t.equal(aggregator.value(scalar('eventsPerSecond'), 20), 11 / 630, 'clipped to the start');
  t.equal(aggregator.previousValue(scalar('eventsPerSecond'), 20), 0, 'before the start');
  t.equal(aggregator.value(scalar('currentThroughput'), 5), 1 / 5, 'the live value');
  t.equal(
    aggregator.value(scalar('currentThroughput'), 5),
    aggregator.snapshot().throughput.current,
  );
  t.equal(aggregator.previousValue(scalar('currentThroughput'), 5), 3 / 300);
  t.equal(aggregator.value(scalar('peakThroughput'), 5), 4);
  t.equal(aggregator.previousValue(scalar('peakThroughput'), 5), 3);
  t.equal(aggregator.value(scalar('peakThroughput'), 1), 1);
  t.end();
});

void t.test('indexed maps over the window', (t) => {
  const aggregator = scenario();
  const byType = (key: string): MetricRef => ({ kind: 'indexed', map: 'eventsByType', key });
  const bySource = (key: string): MetricRef => ({ kind: 'indexed', map: 'eventsBySource', key });
  const bySeverity = (key: string): MetricRef => ({
    kind: 'indexed',
    map: 'eventsBySeverity',
    key,
  });
  t.equal(aggregator.value(byType('a'), 5), 4);
  t.equal(aggregator.previousValue(byType('a'), 5), 0);
  t.equal(aggregator.value(byType('a'), 11), 6);
  t.equal(aggregator.value(byType('nope'), 11), 0);
  t.equal(aggregator.value(bySource('s2'), 5), 1);
  t.equal(aggregator.previousValue(bySource('s2'), 5), 3);
  t.equal(aggregator.value(bySeverity('ERROR'), 5), 2);
  t.equal(aggregator.previousValue(bySeverity('ERROR'), 5), 3);
  t.equal(aggregator.value(bySeverity('CRITICAL'), 5), 1);
  t.equal(aggregator.value(bySeverity('error'), 5), 0);
  t.end();
});

void t.test('window sizes are clamped to 1..1440 minutes', (t) => {
  const aggregator = scenario();
  t.equal(aggregator.value(scalar('totalEvents'), 0), 2);
  t.equal(aggregator.value(scalar('totalEvents'), 1), 2);
  t.equal(aggregator.value(scalar('totalEvents'), 100_000), 11);
  t.equal(aggregator.value(scalar('totalEvents'), Number.NaN), 2);
  t.equal(aggregator.value(scalar('totalEvents'), Number.POSITIVE_INFINITY), 11);
  t.end();
});

void t.test('hasKey: keys used since start or the last reset', (t) => {
  const aggregator = scenario();
  t.equal(aggregator.hasKey('eventsByType', 'b'), true);
  t.equal(aggregator.hasKey('eventsByType', 'z'), false);
  t.equal(aggregator.hasKey('eventsBySource', 's2'), true);
  t.equal(aggregator.hasKey('eventsBySource', 'a'), false);
  t.equal(aggregator.hasKey('eventsBySeverity', 'ERROR'), true);
  t.equal(aggregator.hasKey('eventsBySeverity', 'WARNING'), false);
  t.equal(aggregator.hasKey('eventsBySeverity', 'BOGUS'), false);
  t.end();
});

void t.test('long windows merge hourly rollups, and a late event refreshes them', (t) => {
  const { aggregator, clock } = newAggregator();
  const now = T0 + 5 * HOUR + 45 * MINUTE;
  clock.set(now);
  aggregator.record(
    [0, 1, 2, 3, 4, 5].map((hour) =>
      event(T0 + hour * HOUR + 30 * MINUTE, { latencyMs: (hour + 1) * 10, userId: `u-h${hour}` }),
    ),
  );
  t.equal(aggregator.value(scalar('latencyP50'), 1440), 30);
  t.equal(aggregator.value(scalar('latencyP99'), 1440), 60);
  t.equal(aggregator.value(scalar('uniqueUsers'), 1440), 6);
  // 09:46 .. 12:45: u-h0, u-h1, u-h2 (two full hours from rollups, one partial hour)
  t.equal(aggregator.previousValue(scalar('uniqueUsers'), 180), 3);
  aggregator.record([
    event(T0 + HOUR + 10 * MINUTE, { latencyMs: 1, userId: 'late' }),
    event(T0 + HOUR + 10 * MINUTE, { latencyMs: 1 }),
  ]);
  t.equal(aggregator.value(scalar('latencyP50'), 1440), 20);
  t.equal(aggregator.value(scalar('latencyMin'), 1440), 1);
  t.equal(aggregator.previousValue(scalar('uniqueUsers'), 180), 4);
  t.end();
});

void t.test('a latency above 255 ms reads within 1 % and never beyond the exact max', (t) => {
  const { aggregator } = newAggregator();
  aggregator.record([event(T0, { latencyMs: 1000 }), event(T0, { latencyMs: 1234 })]);
  const p50 = aggregator.value(scalar('latencyP50'), 5);
  t.ok(Math.abs(p50 - 1000) <= 10, `p50 ${p50}`);
  t.equal(aggregator.value(scalar('latencyP99'), 5), 1234);
  t.end();
});
