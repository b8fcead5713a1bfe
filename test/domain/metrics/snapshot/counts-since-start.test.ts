// Counts since start or reset (GET /metrics' Prometheus counters): equal to the snapshot's 24 h
// counts at first, and unlike them never going down when minutes leave the 24 h; capped as the
// snapshot is; zeroed by a reset.
import t from 'tap';
import { HOUR, MINUTE, T0, event, newAggregator } from '../fixtures.ts';

void t.test('within the 24 h they are the snapshot counts', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + MINUTE);
  aggregator.record([
    event(T0, { eventType: 'a', source: 'web', severity: 'ERROR' }),
    event(T0, { eventType: 'a', source: 'app' }),
    event(T0, { eventType: 'b', source: 'web', severity: 'WARNING' }),
  ]);
  const snapshot = aggregator.snapshot();
  const counts = aggregator.countsSinceStart();
  t.equal(counts.since, T0);
  t.equal(counts.events, snapshot.summary.totalEvents);
  t.same(counts.byType, snapshot.eventsByType);
  t.same(counts.bySource, snapshot.eventsBySource);
  t.same(counts.bySeverity, snapshot.eventsBySeverity);
  t.end();
});

void t.test('minutes leaving the 24 h keep their counts here', (t) => {
  const { aggregator, clock } = newAggregator();
  aggregator.record([event(T0, { eventType: 'old' }), event(T0, { eventType: 'kept' })]);
  clock.set(T0 + 2 * HOUR);
  aggregator.record([event(T0 + 2 * HOUR, { eventType: 'kept', source: 'app' })]);
  clock.set(T0 + 25 * HOUR);
  const snapshot = aggregator.snapshot();
  t.same(snapshot.eventsByType, { kept: 1 }, 'the first minute left the 24 h');
  const counts = aggregator.countsSinceStart();
  t.equal(counts.events, 3);
  t.same(counts.byType, { old: 1, kept: 2 });
  t.same(counts.bySource, { web: 2, app: 1 });
  t.same(counts.bySeverity, { INFO: 3, WARNING: 0, ERROR: 0, CRITICAL: 0 });
  t.end();
});

void t.test('past the cap of names, expired counts go to (other); a reset zeroes all', (t) => {
  const { aggregator, clock } = newAggregator({ maxEventTypes: 2 });
  // a and b leave the 24 h before c and d arrive, so all four are counted by name while live.
  for (const [eventType, at] of [
    ['a', T0],
    ['b', T0 + HOUR],
    ['c', T0 + 25 * HOUR],
    ['d', T0 + 26 * HOUR],
  ] as const) {
    clock.set(at);
    aggregator.record([event(at, { eventType })]);
    t.same(Object.keys(aggregator.snapshot().eventsByType).includes('(other)'), false);
  }
  clock.set(T0 + 60 * HOUR);
  const counts = aggregator.countsSinceStart();
  t.same(counts.byType, { a: 1, b: 1, '(other)': 2 }, 'at most 2 names kept, then (other)');
  t.equal(counts.events, 4);
  aggregator.reset();
  t.same(aggregator.countsSinceStart().byType, {});
  t.equal(aggregator.countsSinceStart().since, T0 + 60 * HOUR);
  t.end();
});
