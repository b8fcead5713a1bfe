import t from 'tap';
import type { MetricRef } from '../../../../src/domain/metrics/windows/metric-names.ts';
import { clampWindow } from '../../../../src/domain/metrics/windows/window-read.ts';
import { WindowReads } from '../../../../src/domain/metrics/windows/window-reads.ts';

const scalar = (name: 'totalEvents' | 'latencyP50' | 'latencyP99' | 'uniqueUsers'): MetricRef => ({
  kind: 'scalar',
  name,
});
const byType = (key: string): MetricRef => ({ kind: 'indexed', map: 'eventsByType', key });

void t.test('each distinct (metric, window, last or previous) gets one slot', (t) => {
  const reads = new WindowReads();
  const total5 = reads.slot(scalar('totalEvents'), 5, false);
  t.equal(reads.slot({ kind: 'scalar', name: 'totalEvents' }, 5, false), total5, 'equal refs');
  t.not(reads.slot(scalar('totalEvents'), 5, true), total5, 'the window before is another read');
  t.not(reads.slot(scalar('totalEvents'), 6, false), total5);
  t.not(reads.slot(byType('totalEvents'), 5, false), total5, 'a key named like a scalar');
  t.not(reads.slot(byType('a|5'), 5, false), reads.slot(byType('a'), 5, false));
  t.equal(reads.size, 6);
  t.end();
});

void t.test('windows are whole minutes from 1 to 1440; offsets count back from now', (t) => {
  t.same(
    [0, 1, 5.7, 1440, 2000, Number.NaN, Infinity].map(clampWindow),
    [1, 1, 5, 1440, 1440, 1, 1440],
  );
  const reads = new WindowReads();
  t.equal(reads.slot(scalar('totalEvents'), 0, false), reads.slot(scalar('totalEvents'), 1, false));
  const live = reads.at(reads.slot(scalar('totalEvents'), 5, false));
  t.same([live.minutes, live.previous, live.start, live.end], [5, false, 0, 5]);
  const before = reads.at(reads.slot(scalar('totalEvents'), 5, true));
  t.same([before.minutes, before.previous, before.start, before.end], [5, true, 5, 10]);
  const widest = reads.at(reads.slot(scalar('totalEvents'), 9999, true));
  t.same([widest.start, widest.end], [1440, 2880]);
  t.throws(() => reads.at(99), RangeError);
  t.end();
});

void t.test('groups: the keys of a map with their bounds; percentiles and users by window', (t) => {
  const reads = new WindowReads();
  const a5 = reads.slot(byType('a'), 5, false);
  const a5before = reads.slot(byType('a'), 5, true);
  const p99at10 = reads.slot(scalar('latencyP99'), 10, false);
  const b2 = reads.slot(byType('b'), 2, false);
  const a3 = reads.slot(byType('a'), 3, false);
  const sourceA = reads.slot({ kind: 'indexed', map: 'eventsBySource', key: 'a' }, 5, false);
  const p50at2 = reads.slot(scalar('latencyP50'), 2, false);
  const p50before2 = reads.slot(scalar('latencyP50'), 2, true);
  const p99before2 = reads.slot(scalar('latencyP99'), 2, true);
  const users7 = reads.slot(scalar('uniqueUsers'), 7, false);
  const users1 = reads.slot(scalar('uniqueUsers'), 1, false);
  reads.slot({ kind: 'indexed', map: 'eventsBySeverity', key: 'ERROR' }, 60, false);

  const groups = reads.groups();
  t.equal(groups.depth, 60);
  const { types, sources } = groups;
  t.same(types.keys, ['a', 'b']);
  t.same([...types.bounds], [0, 5, 10, 3, 0, 2], 'a: 0 5 10 3, b: 0 2');
  t.same([...types.keyOf], [0, 0, 0, 0, 1, 1]);
  t.same(
    [...types.byBound].map((i) => types.bounds[i]),
    [0, 0, 2, 3, 5, 10],
  );
  t.same([...types.slots], [a5, a5before, a3, b2]);
  t.same([...types.startAt], [0, 1, 0, 4], 'starts 0, 5, 0 of a; 0 of b');
  t.same([...types.endAt], [1, 2, 3, 5], 'ends 5, 10, 3 of a; 2 of b');
  t.equal(types.depth, 10);
  t.same([sources.keys, [...sources.slots], sources.depth], [['a'], [sourceA], 5]);
  t.same(groups.percentiles, [p50at2, p50before2, p99before2, p99at10]);
  t.same(groups.liveUsers, [users1, users7]);
  t.equal(reads.groups(), groups, 'kept while no read is added');

  reads.slot(scalar('totalEvents'), 1440, true);
  const more = reads.groups();
  t.not(more, groups, 'rebuilt after a new read');
  t.equal(more.depth, 1440, 'never deeper than the retention');
  t.end();
});
