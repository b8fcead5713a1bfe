// The per-minute history (GET /api/v1/metrics/history): one point per minute from start / reset
// to now, counts, rates over the part of a minute that counted, and latency percentiles of the
// minute's own events; bounded by the 24 h the state keeps.
import t from 'tap';
import { MINUTE, SECOND, T0, events, newAggregator } from '../fixtures.ts';

t.test('one point per minute since start, each with its own counts and percentiles', async (t) => {
  const { aggregator, clock } = newAggregator({}, T0);
  // Events count in the minute the aggregator's clock reads when they arrive.
  clock.set(T0 + 5 * SECOND);
  aggregator.record(events(60, T0 + 5 * SECOND, { latencyMs: 10 }));
  clock.set(T0 + MINUTE + SECOND);
  aggregator.record(events(30, T0 + MINUTE + SECOND, { latencyMs: 200, severity: 'ERROR' }));
  aggregator.record(events(90, T0 + MINUTE + SECOND, { latencyMs: 20 }));
  clock.set(T0 + 2 * MINUTE + 30 * SECOND);
  const { points } = aggregator.history(60);
  t.same(
    points.map((p) => p.t),
    [T0, T0 + MINUTE, T0 + 2 * MINUTE],
    'from the start minute to the current one, nothing before start',
  );
  const [first, second, current] = points;
  t.match(first, { events: 60, errors: 0, eventsPerSecond: 1, errorRate: 0, p50: 10, p99: 10 });
  t.match(second, { events: 120, errors: 30, eventsPerSecond: 2, errorRate: 25 });
  t.equal(second?.p50, 20);
  t.equal(second?.p95, 200);
  t.match(current, { events: 0, errors: 0, errorRate: 0, p50: 0, p95: 0, p99: 0 });
  t.equal(current?.eventsPerSecond, 0, 'an empty current minute');
});

t.test('the current minute rates over its elapsed seconds only', async (t) => {
  const { aggregator, clock } = newAggregator({}, T0);
  clock.set(T0 + 10 * MINUTE);
  aggregator.record(events(20, T0 + 10 * MINUTE));
  clock.set(T0 + 10 * MINUTE + 10 * SECOND);
  const last = aggregator.history(1).points;
  t.equal(last.length, 1, 'minutes=1 is the current minute alone');
  t.equal(last[0]?.eventsPerSecond, 2, '20 events over 10 s');
});

t.test('minutes bounds the points; a reset starts the history again', async (t) => {
  const { aggregator, clock } = newAggregator({}, T0);
  clock.set(T0 + 200 * MINUTE);
  t.equal(aggregator.history(60).points.length, 60);
  t.equal(aggregator.history(1440).points.length, 201, 'only minutes since start');
  aggregator.record(events(5, T0 + 200 * MINUTE));
  aggregator.reset();
  const after = aggregator.history(60).points;
  t.equal(after.length, 1);
  t.equal(after[0]?.events, 0, 'the reset forgot the events');
});
