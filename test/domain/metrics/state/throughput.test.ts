import t from 'tap';
import { HOUR, MINUTE, SECOND, T0, events, newAggregator } from '../fixtures.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

void t.test('current = events of the last 5 full seconds / 5; peak = the busiest second', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + 10 * SECOND + 500);
  aggregator.record([
    ...events(4, T0 + 4 * SECOND), // second 4: before the 5 full seconds
    ...events(1, T0 + 5 * SECOND + 10),
    ...events(6, T0 + 7 * SECOND + 100), // the peak
    ...events(6, T0 + 8 * SECOND + 900), // as high, later: the first second keeps the peak
    ...events(1, T0 + 9 * SECOND + 999),
    ...events(3, T0 + 10 * SECOND), // the current, partial second: not in current
  ]);
  const snapshot = aggregator.snapshot();
  t.equal(snapshot.throughput.current, 14 / 5);
  t.equal(snapshot.summary.eventsPerSecond, 14 / 5);
  t.equal(snapshot.throughput.peak, 6);
  t.equal(snapshot.throughput.peakTimestamp, iso(T0 + 7 * SECOND));
  // avg since start, shorter than an hour: 21 events / 10.5 s
  t.equal(snapshot.throughput.avg, 21 / 10.5);

  // current does not depend on reads: five seconds later with nothing new it is 0.
  clock.set(T0 + 15 * SECOND);
  t.equal(aggregator.snapshot().throughput.current, 3 / 5);
  clock.set(T0 + 16 * SECOND);
  t.equal(aggregator.snapshot().throughput.current, 0);
  t.equal(aggregator.snapshot().throughput.peak, 6);
  t.end();
});

void t.test('avg covers the last hour once start is more than an hour ago', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + 2 * HOUR);
  aggregator.record([
    ...events(100, T0 + 5 * SECOND), // over an hour old: not in avg
    ...events(180, T0 + 90 * MINUTE),
    ...events(180, T0 + 2 * HOUR - 10 * SECOND),
  ]);
  t.equal(aggregator.snapshot().throughput.avg, 360 / 3600);
  t.end();
});

void t.test('avg after a reset covers the time since the reset', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + 2 * HOUR);
  aggregator.reset();
  clock.set(T0 + 2 * HOUR + 30 * SECOND);
  aggregator.record(events(60, T0 + 2 * HOUR + 10 * SECOND));
  t.equal(aggregator.snapshot().throughput.avg, 2);
  t.end();
});

void t.test('peak is the highest 1-second count of the 24 h', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + 3 * HOUR);
  aggregator.record([...events(9, T0 + 1 * SECOND), ...events(4, T0 + 2 * HOUR)]);
  t.same(
    {
      peak: aggregator.snapshot().throughput.peak,
      at: aggregator.snapshot().throughput.peakTimestamp,
    },
    { peak: 9, at: iso(T0 + 1 * SECOND) },
  );
  clock.set(T0 + 24 * HOUR + 30 * SECOND);
  t.same(
    {
      peak: aggregator.snapshot().throughput.peak,
      at: aggregator.snapshot().throughput.peakTimestamp,
    },
    { peak: 4, at: iso(T0 + 2 * HOUR) },
  );
  t.end();
});

void t.test('trend: the last 60 s against the 300 s before, ±10 %', (t) => {
  const now = T0 + 10 * MINUTE; // recent = seconds 540..599, baseline = 240..539
  const baseline = () => [...events(150, T0 + 300 * SECOND), ...events(150, T0 + 500 * SECOND)];
  const trendWith = (recentEvents: number): string => {
    const { aggregator, clock } = newAggregator();
    clock.set(now);
    aggregator.record([
      ...baseline(),
      ...events(recentEvents, T0 + 570 * SECOND),
      ...events(50, T0 + 100 * SECOND), // before the baseline: ignored
      ...events(50, now), // the current second: ignored
    ]);
    return aggregator.snapshot().throughput.trend;
  };
  // baseline: 300 events / 300 s = 1/s
  t.equal(trendWith(67), 'increasing', '1.117/s > 1.1/s');
  t.equal(trendWith(65), 'stable', '1.083/s');
  t.equal(trendWith(55), 'stable', '0.917/s');
  t.equal(trendWith(53), 'decreasing', '0.883/s < 0.9/s');

  const { aggregator, clock } = newAggregator();
  clock.set(now);
  aggregator.record(events(1, T0 + 590 * SECOND));
  t.equal(aggregator.snapshot().throughput.trend, 'increasing', 'events after an idle baseline');
  t.end();
});
