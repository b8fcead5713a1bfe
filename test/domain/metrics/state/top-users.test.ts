import t from 'tap';
import { HOUR, MINUTE, SECOND, T0, event, events, newAggregator } from '../fixtures.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

void t.test('the 10 most active users, ties broken by the latest lastSeen', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + 10 * MINUTE);
  aggregator.record([
    ...events(5, T0 + 1 * SECOND, { userId: 'alice' }),
    ...events(3, T0 + 2 * SECOND, { userId: 'bob' }),
    ...events(3, T0 + 3 * SECOND, { userId: 'carol' }), // as many as bob, seen later: first
    ...events(2, T0 + 4 * SECOND, { userId: 'erin' }),
    ...events(2, T0 + 4 * SECOND, { userId: 'dave' }), // same count and lastSeen: by id
    ...[...Array(10).keys()].map((i) => event(T0 + 5 * SECOND, { userId: `one-${i}` })),
    ...events(4, T0 + 6 * SECOND), // no user: not counted
  ]);
  const { topUsers, summary } = aggregator.snapshot();
  t.equal(summary.uniqueUsers, 15);
  t.equal(topUsers.length, 10);
  t.same(topUsers.slice(0, 5), [
    { userId: 'alice', eventCount: 5, lastSeen: iso(T0 + 1 * SECOND) },
    { userId: 'carol', eventCount: 3, lastSeen: iso(T0 + 3 * SECOND) },
    { userId: 'bob', eventCount: 3, lastSeen: iso(T0 + 2 * SECOND) },
    { userId: 'dave', eventCount: 2, lastSeen: iso(T0 + 4 * SECOND) },
    { userId: 'erin', eventCount: 2, lastSeen: iso(T0 + 4 * SECOND) },
  ]);
  t.same(
    topUsers.slice(5).map((u) => u.userId),
    ['one-0', 'one-1', 'one-2', 'one-3', 'one-4'],
  );
  t.end();
});

void t.test('lastSeen is the latest receivedAt, even when a late event arrives after', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(T0 + MINUTE);
  aggregator.record([event(T0 + 30 * SECOND, { userId: 'u' })]);
  aggregator.record([event(T0 + 10 * SECOND, { userId: 'u' })]);
  t.same(aggregator.snapshot().topUsers, [
    { userId: 'u', eventCount: 2, lastSeen: iso(T0 + 30 * SECOND) },
  ]);
  t.end();
});

void t.test('a user count covers the current hour and the 23 before it', (t) => {
  const { aggregator, clock } = newAggregator();
  aggregator.record(events(2, T0, { userId: 'u' }));
  clock.set(T0 + 23 * HOUR + 30 * MINUTE);
  aggregator.record(events(1, T0 + 23 * HOUR + 30 * MINUTE, { userId: 'u' }));
  clock.set(T0 + 23 * HOUR + 59 * MINUTE);
  t.equal(aggregator.snapshot().topUsers[0]?.eventCount, 3);
  clock.set(T0 + 24 * HOUR + MINUTE);
  const snapshot = aggregator.snapshot();
  t.equal(snapshot.topUsers[0]?.eventCount, 1);
  t.equal(snapshot.summary.uniqueUsers, 1);
  clock.set(T0 + 48 * HOUR);
  t.same(aggregator.snapshot().topUsers, []);
  t.equal(aggregator.snapshot().summary.uniqueUsers, 0);
  t.end();
});
