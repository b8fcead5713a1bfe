// The per-tick window table (many reads at one moment) against hand-computed values: window edges,
// empty minutes, windows longer than the history, and the windows before (RATE_CHANGE).
import t from 'tap';
import type { Aggregator } from '../../../../src/domain/metrics/aggregator.ts';
import type {
  MetricRef,
  ScalarMetric,
} from '../../../../src/domain/metrics/windows/metric-names.ts';
import { MetricsState } from '../../../../src/domain/metrics/state/metrics-state.ts';
import { MinuteColumns } from '../../../../src/domain/metrics/windows/minute-columns.ts';
import { recordEvents } from '../../../../src/domain/metrics/state/record-events.ts';
import { WindowReads } from '../../../../src/domain/metrics/windows/window-reads.ts';
import { DEFAULT_METRICS_LIMITS } from '../../../../src/domain/metrics/metrics-limits.ts';
import { MINUTE, SECOND, T0, event, newAggregator, tenMinuteScenario } from '../fixtures.ts';

const scalar = (name: ScalarMetric): MetricRef => ({ kind: 'scalar', name });
const indexed = (
  map: 'eventsByType' | 'eventsBySource' | 'eventsBySeverity',
  key: string,
): MetricRef => ({ kind: 'indexed', map, key });
const at = (minute: number, second: number): number => T0 + minute * MINUTE + second * SECOND;

/**
 * now = 10:10:30 (start 10:00:00), minutes with events: 0, 3, 7, 10; offsets back from now:
 * offset 0 = 10:10, 3 = 10:07, 7 = 10:03, 10 = 10:00.
 *   10:00:05  2 x a/s1 INFO 10 ms (u1)
 *   10:03:07  3 x b/s2 ERROR 30 ms (u2, u3, u3)
 *   10:07:01  4 x a/s1 ERROR 100 (u1), ERROR 200 (u4), INFO 50, INFO 250
 *   10:10:10  c/s1 CRITICAL 40 ms (u5);  10:10:27  c/s2 INFO 60 ms
 */
const scenarioEvents = tenMinuteScenario();
const NOW = at(10, 30);

function scenario(): Aggregator {
  const { aggregator, clock } = newAggregator();
  clock.set(NOW);
  aggregator.record(scenarioEvents);
  return aggregator;
}

/** Reads all of `cases` from one table, in the order given; returns [label, value] pairs. */
function readAll(
  aggregator: Aggregator,
  cases: readonly (readonly [string, MetricRef, number, boolean])[],
): [string, number][] {
  const reads = new WindowReads();
  const slots = cases.map(([, ref, window, previous]) => reads.slot(ref, window, previous));
  const values = aggregator.valuesOf(reads);
  return cases.map(([label], i) => [label, values.get(slots[i]!)]);
}

void t.test('columns: running sums, minutes with events and extremes by offset', (t) => {
  const state = new MetricsState(DEFAULT_METRICS_LIMITS, T0);
  state.advance(NOW);
  recordEvents(state, scenarioEvents, NOW);
  const columns = new MinuteColumns(state, 11);
  t.same([...columns.events], [0, 2, 2, 2, 6, 6, 6, 6, 9, 9, 9, 11]);
  t.same([...columns.errors], [0, 1, 1, 1, 3, 3, 3, 3, 6, 6, 6, 6]);
  t.same([...columns.filled], [0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4]);
  t.same([...columns.severities[3]!], [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], 'CRITICAL');
  t.equal(columns.buckets[1], undefined, 'an empty minute');
  t.equal(columns.lowestLatency(0, 11), 10);
  t.equal(columns.lowestLatency(0, 3), 40);
  t.equal(columns.lowestLatency(3, 7), 50, 'a range that does not start now');
  t.equal(columns.highestLatency(4, 11), 30);
  t.equal(columns.highestLatency(1, 3), -Infinity, 'no event');
  t.equal(columns.peakSecond(0, 4), 4);
  t.equal(columns.peakSecond(4, 11), 3);
  t.equal(columns.rangeKey(0, 1), columns.rangeKey(0, 3), 'same minutes with events');
  t.not(columns.rangeKey(0, 3), columns.rangeKey(0, 4));
  t.equal(columns.rangeKey(4, 6), columns.rangeKey(5, 7), 'both empty');
  t.end();
});

void t.test(
  'counts and rates: window edges, windows longer than the history, windows before',
  (t) => {
    const values = readAll(scenario(), [
      ['total 1', scalar('totalEvents'), 1, false],
      ['total 3', scalar('totalEvents'), 3, false],
      ['total 4', scalar('totalEvents'), 4, false],
      ['total 1440', scalar('totalEvents'), 1440, false],
      ['total before 3 (10:05-10:07)', scalar('totalEvents'), 3, true],
      ['total before 4 (10:03-10:06)', scalar('totalEvents'), 4, true],
      ['total before 6 (09:59-10:04)', scalar('totalEvents'), 6, true],
      ['total before 11', scalar('totalEvents'), 11, true],
      ['total before 1440', scalar('totalEvents'), 1440, true],
      ['errorRate before 6', scalar('errorRate'), 6, true],
      ['avgLatency before 6', scalar('avgLatency'), 6, true],
      ['errorRate 1 (empty would be 0)', scalar('errorRate'), 1, false],
      ['min before 3', scalar('latencyMin'), 3, true],
      ['max before 3', scalar('latencyMax'), 3, true],
      ['min before 1 (10:09, empty)', scalar('latencyMin'), 1, true],
      ['peak 3', scalar('peakThroughput'), 3, false],
      ['peak 4', scalar('peakThroughput'), 4, false],
      ['peak before 3', scalar('peakThroughput'), 3, true],
      ['eps 4 (10:07:00-now)', scalar('eventsPerSecond'), 4, false],
      ['eps 20 (clipped to start)', scalar('eventsPerSecond'), 20, false],
      ['eps before 5 (10:01-10:06)', scalar('eventsPerSecond'), 5, true],
      ['eps before 6 (10:00-10:05)', scalar('eventsPerSecond'), 6, true],
      ['eps before 20 (before start)', scalar('eventsPerSecond'), 20, true],
      ['current', scalar('currentThroughput'), 5, false],
      ['current before 5', scalar('currentThroughput'), 5, true],
    ]);
    t.same(values, [
      ['total 1', 2],
      ['total 3', 2],
      ['total 4', 6],
      ['total 1440', 11],
      ['total before 3 (10:05-10:07)', 4],
      ['total before 4 (10:03-10:06)', 3],
      ['total before 6 (09:59-10:04)', 5],
      ['total before 11', 0],
      ['total before 1440', 0],
      ['errorRate before 6', 60],
      ['avgLatency before 6', 22],
      ['errorRate 1 (empty would be 0)', 50],
      ['min before 3', 50],
      ['max before 3', 250],
      ['min before 1 (10:09, empty)', 0],
      ['peak 3', 1],
      ['peak 4', 4],
      ['peak before 3', 4],
      ['eps 4 (10:07:00-now)', 6 / 210],
      ['eps 20 (clipped to start)', 11 / 630],
      ['eps before 5 (10:01-10:06)', 3 / 300],
      ['eps before 6 (10:00-10:05)', 5 / 300],
      ['eps before 20 (before start)', 0],
      ['current', 1 / 5],
      ['current before 5', 3 / 300],
    ]);
    t.end();
  },
);

void t.test(
  'percentiles: a deeper window read first, shallower ones after, windows before',
  (t) => {
    const values = readAll(scenario(), [
      ['p99 4', scalar('latencyP99'), 4, false],
      ['p50 4', scalar('latencyP50'), 4, false],
      ['p95 4', scalar('latencyP95'), 4, false],
      ['p50 1', scalar('latencyP50'), 1, false],
      ['p99 1', scalar('latencyP99'), 1, false],
      ['p50 3 (same minutes as 1)', scalar('latencyP50'), 3, false],
      ['p50 1440', scalar('latencyP50'), 1440, false],
      ['p50 before 3', scalar('latencyP50'), 3, true],
      ['p99 before 3', scalar('latencyP99'), 3, true],
      ['p50 before 4', scalar('latencyP50'), 4, true],
      ['p50 before 6', scalar('latencyP50'), 6, true],
      ['p50 before 11', scalar('latencyP50'), 11, true],
    ]);
    t.same(values, [
      ['p99 4', 250], // 40 50 60 100 200 250
      ['p50 4', 60],
      ['p95 4', 250],
      ['p50 1', 40], // 40 60
      ['p99 1', 60],
      ['p50 3 (same minutes as 1)', 40],
      ['p50 1440', 40], // 10 10 30 30 30 40 50 60 100 200 250
      ['p50 before 3', 100], // 50 100 200 250
      ['p99 before 3', 250],
      ['p50 before 4', 30],
      ['p50 before 6', 30], // 10 10 30 30 30
      ['p50 before 11', 0],
    ]);
    t.end();
  },
);

void t.test('percentiles of several windows before the live one, each its own', (t) => {
  const { aggregator, clock } = newAggregator();
  clock.set(at(5, 30));
  // Minute m has latencies 10m+1, 10m+2, 10m+3.
  aggregator.record(
    [0, 1, 2, 3, 4, 5].flatMap((m) =>
      [1, 2, 3].map((i) => event(at(m, 1), { latencyMs: 10 * m + i })),
    ),
  );
  t.same(
    readAll(aggregator, [
      ['p50 before 3 (10:00-10:02)', scalar('latencyP50'), 3, true],
      ['p50 before 1 (10:04)', scalar('latencyP50'), 1, true],
      ['p50 before 2 (10:02-10:03)', scalar('latencyP50'), 2, true],
      ['p99 before 2', scalar('latencyP99'), 2, true],
      ['p50 3 (10:03-10:05)', scalar('latencyP50'), 3, false],
    ]),
    [
      ['p50 before 3 (10:00-10:02)', 12],
      ['p50 before 1 (10:04)', 42],
      ['p50 before 2 (10:02-10:03)', 23],
      ['p99 before 2', 33],
      ['p50 3 (10:03-10:05)', 42],
    ],
  );
  t.end();
});

void t.test('unique users, types and sources, and indexed keys, over windows and before', (t) => {
  const values = readAll(scenario(), [
    ['users 11', scalar('uniqueUsers'), 11, false],
    ['users 1', scalar('uniqueUsers'), 1, false],
    ['users 4', scalar('uniqueUsers'), 4, false],
    ['users before 4', scalar('uniqueUsers'), 4, true],
    ['users before 3', scalar('uniqueUsers'), 3, true],
    ['users before 11', scalar('uniqueUsers'), 11, true],
    ['types 1', scalar('uniqueEventTypes'), 1, false],
    ['types 4', scalar('uniqueEventTypes'), 4, false],
    ['types 1440', scalar('uniqueEventTypes'), 1440, false],
    ['types before 3', scalar('uniqueEventTypes'), 3, true],
    ['types before 4', scalar('uniqueEventTypes'), 4, true],
    ['types before 11', scalar('uniqueEventTypes'), 11, true],
    ['sources 1', scalar('uniqueSources'), 1, false],
    ['sources before 4', scalar('uniqueSources'), 4, true],
    ['a before 6', indexed('eventsByType', 'a'), 6, true],
    ['a 1', indexed('eventsByType', 'a'), 1, false],
    ['a 4', indexed('eventsByType', 'a'), 4, false],
    ['a 11', indexed('eventsByType', 'a'), 11, false],
    ['a before 4', indexed('eventsByType', 'a'), 4, true],
    ['a before 3', indexed('eventsByType', 'a'), 3, true],
    ['a 1440', indexed('eventsByType', 'a'), 1440, false],
    ['nope 11', indexed('eventsByType', 'nope'), 11, false],
    ['s2 11', indexed('eventsBySource', 's2'), 11, false],
    ['s2 before 4', indexed('eventsBySource', 's2'), 4, true],
    ['ERROR 4', indexed('eventsBySeverity', 'ERROR'), 4, false],
    ['ERROR before 4', indexed('eventsBySeverity', 'ERROR'), 4, true],
    ['BOGUS 11', indexed('eventsBySeverity', 'BOGUS'), 11, false],
  ]);
  t.same(values, [
    ['users 11', 5],
    ['users 1', 1],
    ['users 4', 3], // u1, u4 (10:07), u5
    ['users before 4', 2], // u2, u3
    ['users before 3', 2], // u1, u4
    ['users before 11', 0],
    ['types 1', 1],
    ['types 4', 2],
    ['types 1440', 3],
    ['types before 3', 1],
    ['types before 4', 1],
    ['types before 11', 0],
    ['sources 1', 2],
    ['sources before 4', 1],
    ['a before 6', 2],
    ['a 1', 0],
    ['a 4', 4],
    ['a 11', 6],
    ['a before 4', 0],
    ['a before 3', 4],
    ['a 1440', 6],
    ['nope 11', 0],
    ['s2 11', 4],
    ['s2 before 4', 3],
    ['ERROR 4', 2],
    ['ERROR before 4', 3],
    ['BOGUS 11', 0],
  ]);
  t.end();
});

void t.test('uniqueUsers past the cap: exact while no user of the window was forgotten', (t) => {
  const { aggregator, clock } = newAggregator({ maxTrackedUsers: 3 });
  // u1..u5 in minutes 0..4: u4 forgets u1 (minute 0), u5 forgets u2 (minute 1).
  for (let minute = 0; minute < 5; minute++) {
    clock.set(at(minute, 20));
    aggregator.record([event(at(minute, 10), { userId: `u${minute + 1}` })]);
  }
  const values = readAll(aggregator, [
    ['5 (from 10:00)', scalar('uniqueUsers'), 5, false],
    ['1', scalar('uniqueUsers'), 1, false],
    ['4 (from 10:01, u2 forgotten)', scalar('uniqueUsers'), 4, false],
    ['3 (from 10:02)', scalar('uniqueUsers'), 3, false],
    ['60', scalar('uniqueUsers'), 60, false],
    ['before 2 (10:01-10:02)', scalar('uniqueUsers'), 2, true],
  ]);
  t.same(values, [
    ['5 (from 10:00)', 5], // the estimate: exact for so few
    ['1', 1],
    ['4 (from 10:01, u2 forgotten)', 4],
    ['3 (from 10:02)', 3],
    ['60', 5],
    ['before 2 (10:01-10:02)', 2],
  ]);
  t.end();
});

void t.test('a 24 h history: the oldest minute is in the 1440-minute window, not after it', (t) => {
  const { aggregator, clock } = newAggregator();
  aggregator.record([event(T0, { eventType: 'old', latencyMs: 5 })]);
  clock.set(T0 + 1439 * MINUTE + 30 * SECOND);
  aggregator.record([event(T0 + 1439 * MINUTE, { eventType: 'new', latencyMs: 7 })]);
  const now = [
    ['total 1440', scalar('totalEvents'), 1440, false],
    ['total 1439', scalar('totalEvents'), 1439, false],
    ['old 1440', indexed('eventsByType', 'old'), 1440, false],
    ['types 1440', scalar('uniqueEventTypes'), 1440, false],
    ['min 1440', scalar('latencyMin'), 1440, false],
    ['total before 720 (the first 720 minutes)', scalar('totalEvents'), 720, true],
  ] as const;
  t.same(readAll(aggregator, now), [
    ['total 1440', 2],
    ['total 1439', 1],
    ['old 1440', 1],
    ['types 1440', 2],
    ['min 1440', 5],
    ['total before 720 (the first 720 minutes)', 1],
  ]);
  clock.set(T0 + 1440 * MINUTE);
  t.same(
    readAll(aggregator, now).map(([, value]) => value),
    [1, 1, 0, 1, 7, 0],
    'a minute later the oldest minute left the 24 h',
  );
  t.end();
});

void t.test(
  'windows before the current minute follow a late event, and the turn of a minute',
  (t) => {
    const reads: [string, MetricRef, number, boolean][] = [
      ['users before 2', scalar('uniqueUsers'), 2, true],
      ['types before 2', scalar('uniqueEventTypes'), 2, true],
      ['sources before 2', scalar('uniqueSources'), 2, true],
      ['p99 before 2', scalar('latencyP99'), 2, true],
    ];
    const history = () => {
      const { aggregator, clock } = newAggregator();
      clock.set(at(3, 10));
      aggregator.record([
        event(at(0, 30), { eventType: 'a', userId: 'u1' }),
        event(at(1, 30), { eventType: 'a', userId: 'u1' }),
      ]);
      const before2 = (): number[] => readAll(aggregator, reads).map(([, value]) => value);
      return { aggregator, clock, before2 };
    };

    const late = history();
    t.same(late.before2(), [1, 1, 1, 10], '10:00-10:01');
    // Received at 10:01:59, stored at 10:03:20: it lands in the window before, which changes.
    late.clock.set(at(3, 20));
    late.aggregator.record([
      event(at(1, 59), { eventType: 'b', source: 'other', userId: 'u2', latencyMs: 500 }),
    ]);
    t.same(late.before2(), [2, 2, 2, 500], 'a late event');

    const turn = history();
    t.same(turn.before2(), [1, 1, 1, 10]);
    // 10:04: the window before is 10:01-10:02, with as many events as 10:00-10:01 had.
    turn.clock.set(at(4, 0));
    turn.aggregator.record([event(at(2, 30), { eventType: 'b', userId: 'u2', latencyMs: 20 })]);
    t.same(turn.before2(), [2, 2, 1, 20], 'the windows moved with the minute');
    t.end();
  },
);
