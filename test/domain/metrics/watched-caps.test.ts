// Keys that rules watch are counted by name whatever the caps (issue 29): a flood of other keys
// fills the cap and goes to (other), a watched key keeps its own count, takes no place under the
// cap, is back to an ordinary key when no rule names it; the snapshot's `limits` and the fill
// count say when a cap filled.
import t from 'tap';
import type { WatchedKeys } from '../../../src/domain/metrics/state/last-event-times.ts';
import { CapFillLog, CAP_FILL_LOG_INTERVAL_MS } from '../../../src/domain/metrics/cap-fill-log.ts';
import { RuleEngine } from '../../../src/domain/rules/rule-engine.ts';
import { HOUR, MINUTE, T0, event, events, newAggregator } from './fixtures.ts';

const watching = (types: string[], sources: string[] = []): WatchedKeys => ({
  types: new Set(types),
  sources: new Set(sources),
});
const byType = (key: string) => ({ kind: 'indexed', map: 'eventsByType', key }) as const;
const bySource = (key: string) => ({ kind: 'indexed', map: 'eventsBySource', key }) as const;
/** `count` events of distinct types `<prefix>0`.. (and distinct sources): a flood. */
const flood = (count: number, at: number, prefix = 'junk') =>
  Array.from({ length: count }, (_, i) =>
    event(at, { eventType: `${prefix}${i}`, source: `${prefix}-src${i}` }),
  );

void t.test('a watched type past a full cap is counted exactly, not as (other)', (t) => {
  const { aggregator, clock } = newAggregator({ maxEventTypes: 3, maxSources: 3 });
  aggregator.watch(watching(['payment.failed'], ['billing']));
  aggregator.record(flood(10, T0));
  clock.set(T0 + 1000);
  aggregator.record(events(5, T0 + 1000, { eventType: 'payment.failed', source: 'billing' }));
  aggregator.record(flood(10, T0 + 1000, 'more'));

  const snapshot = aggregator.snapshot();
  t.equal(snapshot.eventsByType['payment.failed'], 5);
  t.equal(snapshot.eventsBySource.billing, 5);
  t.equal(snapshot.eventsByType['(other)'], 17, '7 + 10 flooded types past the cap');
  t.equal(aggregator.value(byType('payment.failed'), 5), 5);
  t.equal(aggregator.value(bySource('billing'), 5), 5);
  t.equal(snapshot.summary.uniqueEventTypes, 5, '3 named + watched + (other)');
  t.same(snapshot.limits.eventTypes, {
    cap: 3,
    used: 3,
    watched: 1,
    overflowed: true,
    fills: 1,
  });
  t.same(snapshot.limits.sources, { cap: 3, used: 3, watched: 1, overflowed: true, fills: 1 });
  t.equal(snapshot.limits.users.overflowed, false);
  t.end();
});

void t.test('a watched key takes no place under the cap', (t) => {
  const { aggregator } = newAggregator({ maxEventTypes: 2 });
  aggregator.watch(watching(['w']));
  aggregator.record([event(T0, { eventType: 'w' }), ...flood(2, T0)]);
  const snapshot = aggregator.snapshot();
  t.same(snapshot.eventsByType, { w: 1, junk0: 1, junk1: 1 });
  t.equal(snapshot.limits.eventTypes.overflowed, false);
  t.equal(snapshot.limits.eventTypes.fills, 0);
  t.end();
});

void t.test('a rule set that names a key after the cap filled counts it from then on', (t) => {
  const { aggregator, clock } = newAggregator({ maxEventTypes: 2 });
  aggregator.record(flood(3, T0));
  aggregator.record(events(4, T0, { eventType: 'late' }));
  t.equal(aggregator.value(byType('late'), 5), 0, 'under (other) while no rule names it');
  aggregator.watch(watching(['late']));
  clock.set(T0 + MINUTE);
  aggregator.record(events(2, T0 + MINUTE, { eventType: 'late' }));
  t.equal(aggregator.value(byType('late'), 5), 2, 'exact from the watch on; not back-filled');
  t.equal(aggregator.snapshot().eventsByType['(other)'], 5);
  t.end();
});

void t.test(
  'a named key that becomes watched gives its place back; unwatched, it takes one',
  (t) => {
    const { aggregator } = newAggregator({ maxEventTypes: 2 });
    aggregator.record([event(T0, { eventType: 'a' }), event(T0, { eventType: 'b' })]);
    aggregator.watch(watching(['a']));
    t.equal(aggregator.snapshot().limits.eventTypes.used, 1);
    aggregator.record([event(T0, { eventType: 'c' })]);
    t.same(aggregator.snapshot().eventsByType, { a: 1, b: 1, c: 1 }, 'c took the freed place');

    aggregator.watch(watching([]));
    const usage = aggregator.snapshot().limits.eventTypes;
    t.same([usage.used, usage.watched], [3, 0], 'over the cap until keys leave the 24 h');
    aggregator.record([event(T0, { eventType: 'd' }), event(T0, { eventType: 'a' })]);
    t.same(aggregator.snapshot().eventsByType, { a: 2, b: 1, c: 1, '(other)': 1 });
    t.end();
  },
);

void t.test('watched keys leave the 24 h like others, and come back watched', (t) => {
  const { aggregator, clock } = newAggregator({ maxEventTypes: 1 });
  aggregator.watch(watching(['w']));
  aggregator.record([event(T0, { eventType: 'w' }), ...flood(3, T0)]);
  clock.set(T0 + 25 * HOUR);
  t.same(aggregator.snapshot().limits.eventTypes, {
    cap: 1,
    used: 0,
    watched: 0,
    overflowed: false,
    fills: 1,
  });
  aggregator.record([...flood(2, T0 + 25 * HOUR, 'x'), event(T0 + 25 * HOUR, { eventType: 'w' })]);
  const snapshot = aggregator.snapshot();
  t.same(snapshot.eventsByType, { x0: 1, '(other)': 1, w: 1 });
  t.equal(snapshot.limits.eventTypes.fills, 2, 'a second fill');
  const counts = aggregator.countsSinceStart();
  t.equal(counts.byType.w, 2, 'its expired count kept by name past the cap');
  t.end();
});

void t.test('a reset keeps the watched keys and the fill count', (t) => {
  const { aggregator } = newAggregator({ maxEventTypes: 1 });
  aggregator.watch(watching(['w']));
  aggregator.record(flood(3, T0));
  aggregator.reset();
  aggregator.record([...flood(3, T0, 'y'), event(T0, { eventType: 'w' })]);
  const snapshot = aggregator.snapshot();
  t.same(snapshot.eventsByType, { y0: 1, '(other)': 2, w: 1 });
  t.equal(snapshot.limits.eventTypes.fills, 2, 'one before the reset, one after');
  t.equal(aggregator.capsUsage().eventTypes.fills, 2);
  t.end();
});

void t.test('the user cap: a fill when a user still in the 24 h is forgotten', (t) => {
  const { aggregator } = newAggregator({ maxTrackedUsers: 2 });
  aggregator.record(['u1', 'u2', 'u3', 'u4'].map((userId) => event(T0, { userId })));
  t.same(aggregator.snapshot().limits.users, { cap: 2, used: 2, overflowed: true, fills: 1 });
  t.end();
});

void t.test('one log line per fill, at most one per cap per interval', (t) => {
  const { aggregator } = newAggregator({ maxEventTypes: 1, maxSources: 1 });
  const log = new CapFillLog();
  t.same(log.check(aggregator.capsUsage(), T0), [], 'nothing filled');
  aggregator.record(flood(5, T0));
  const first = log.check(aggregator.capsUsage(), T0);
  t.same(
    first.map((n) => [n.cap, n.newFills]),
    [
      ['eventTypes', 1],
      ['sources', 1],
    ],
  );
  aggregator.record(flood(5, T0, 'z'));
  t.same(log.check(aggregator.capsUsage(), T0 + 1), [], 'still full: not told again');
  aggregator.reset();
  aggregator.record(flood(5, T0));
  t.same(log.check(aggregator.capsUsage(), T0 + 2), [], 'a new fill within the interval waits');
  const later = log.check(aggregator.capsUsage(), T0 + CAP_FILL_LOG_INTERVAL_MS);
  t.same(
    later.map((n) => [n.cap, n.newFills, n.totalFills]),
    [
      ['eventTypes', 1, 2],
      ['sources', 1, 2],
    ],
  );
  t.end();
});

void t.test('the engine watches what its rules name; the aggregator follows', (t) => {
  const { aggregator, clock } = newAggregator({ maxEventTypes: 2, maxSources: 2 });
  const engine = new RuleEngine();
  engine.setRules([], T0);
  aggregator.watch(engine.watchedKeys());
  aggregator.record(flood(5, T0));
  const rule = {
    id: 1,
    name: 'payments',
    version: 1,
    ruleType: 'THRESHOLD' as const,
    ruleConfig: {
      metric: 'eventsByType[payment.failed]',
      operator: 'GREATER_THAN',
      threshold: 2,
      windowMinutes: 5,
    },
    severity: 'CRITICAL' as const,
    priority: 0,
    suppressionWindowMinutes: 0,
    maxAlertsPerHour: 100,
    notificationChannels: [],
    notificationConfig: null,
    recentAlerts: [],
    lastAlertAt: null,
    heldSince: null,
    firingSince: null,
  };
  engine.setRules([rule], T0);
  aggregator.watch(engine.watchedKeys());
  clock.set(T0 + 1000);
  aggregator.record(events(3, T0 + 1000, { eventType: 'payment.failed' }));
  const fired = engine.tick(aggregator, T0 + 1000, [], []);
  t.same(
    fired.map((alert) => alert.ruleId),
    [1],
    'fires on the exact count',
  );
  t.end();
});
