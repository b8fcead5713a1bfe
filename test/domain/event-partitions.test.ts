// The partition plan of events (issue 23): ahead by day, month or year, one partition for a stretch the
// service missed, and drops of whole partitions past EVENTS_RETENTION_DAYS with the instant from
// which events stay kept.
import t from 'tap';
import {
  BEFORE_PARTITION,
  DAY_MS,
  grainFor,
  planPartitions,
  type PartitionPlan,
  type RangePartition,
} from '../../src/domain/event-partitions.ts';

const at = (text: string): number => Date.parse(text);
const day = (text: string): number => at(`${text}T00:00:00.000Z`);
const range = (name: string, lower: string | null, upper: string): RangePartition => ({
  name,
  lower: lower === null ? null : day(lower),
  upper: day(upper),
});

/** As the migration leaves an empty table made on 2026-11-27. */
const fresh = [
  range(BEFORE_PARTITION, null, '2026-11-27'),
  range('events_p20261127', '2026-11-27', '2026-11-28'),
];

t.test(
  'the grain: daily up to 92 days of retention, then monthly, yearly past 1,096',
  async (t) => {
    t.equal(grainFor(1), 'day');
    t.equal(grainFor(92), 'day');
    t.equal(grainFor(93), 'month');
    t.equal(grainFor(1096), 'month');
    t.equal(grainFor(1097), 'year');
    t.equal(grainFor(null), 'year', 'keeping everything');
  },
);

t.test('daily partitions are made until past now plus two days', async (t) => {
  const plan = planPartitions(fresh, at('2026-11-27T10:00:00.000Z'), 7, false);
  t.same(
    plan.create.map((p) => [p.name, new Date(p.lower).toISOString(), p.upper - p.lower]),
    [
      ['events_p20261128', '2026-11-28T00:00:00.000Z', DAY_MS],
      ['events_p20261129', '2026-11-29T00:00:00.000Z', DAY_MS],
    ],
  );
  t.equal(plan.drop, null, 'nothing is old enough');
  const next = [...fresh, ...plan.create.map((p) => ({ ...p }))];
  t.same(planPartitions(next, at('2026-11-27T23:59:59.999Z'), 7, false).create, [], 'then none');
});

t.test('monthly partitions run to the first of a month', async (t) => {
  const plan = planPartitions(fresh, at('2026-11-27T23:00:00.000Z'), 365, true);
  const upTo = (p: PartitionPlan) => p.create.map((c) => [c.name, new Date(c.upper).toISOString()]);
  t.same(upTo(plan), [['events_p20261128', '2026-12-01T00:00:00.000Z']]);
  t.equal(plan.drop, null, 'nothing is a year old');
  const next = [...fresh, ...plan.create];
  t.same(upTo(planPartitions(next, at('2026-11-28T23:59:59.999Z'), 365, true)), []);
  t.same(
    upTo(planPartitions(next, at('2026-11-29T00:00:00.000Z'), 365, true)),
    [['events_p20261201', '2027-01-01T00:00:00.000Z']],
    'two days before the month, its partition',
  );
});

t.test('keeping everything: yearly partitions, nothing dropped', async (t) => {
  const plan = planPartitions(fresh, at('2026-12-30T00:00:00.000Z'), null, true);
  t.same(
    plan.create.map((p) => [p.name, new Date(p.upper).toISOString()]),
    [
      ['events_p20261128', '2026-12-30T00:00:00.000Z'],
      ['events_p20261230', '2027-01-01T00:00:00.000Z'],
      ['events_p20270101', '2028-01-01T00:00:00.000Z'],
    ],
  );
  t.equal(plan.drop, null);
});

t.test('a stretch without partitions before today becomes one partition', async (t) => {
  const plan = planPartitions(fresh, at('2026-12-20T08:00:00.000Z'), 30, false);
  t.same(
    plan.create.map((p) => [p.name, new Date(p.upper).toISOString()]),
    [
      ['events_p20261128', '2026-12-20T00:00:00.000Z'],
      ['events_p20261220', '2026-12-21T00:00:00.000Z'],
      ['events_p20261221', '2026-12-22T00:00:00.000Z'],
      ['events_p20261222', '2026-12-23T00:00:00.000Z'],
    ],
  );
});

t.test('partitions wholly before the retention are dropped, BEFORE with them', async (t) => {
  const layout = [
    range(BEFORE_PARTITION, null, '2026-11-27'),
    range('events_p20261127', '2026-11-27', '2026-11-28'),
    range('events_p20261128', '2026-11-28', '2026-11-29'),
    range('events_p20261129', '2026-11-29', '2026-11-30'),
    range('events_p20261130', '2026-11-30', '2026-12-01'),
    range('events_p20261201', '2026-12-01', '2026-12-02'),
    range('events_p20261202', '2026-12-02', '2026-12-03'),
  ];
  // Two days kept on 2026-11-30: events from 2026-11-28 on stay.
  const plan = planPartitions(layout, at('2026-11-30T00:00:00.000Z'), 2, false);
  t.same(plan.drop, { names: [BEFORE_PARTITION, 'events_p20261127'], keptFrom: day('2026-11-28') });
  t.same(
    planPartitions(layout, at('2026-11-29T23:59:59.999Z'), 2, true).drop,
    { names: [BEFORE_PARTITION], keptFrom: day('2026-11-27') },
    'the day before, BEFORE holding rows goes alone',
  );
  t.equal(
    planPartitions(layout, at('2026-11-29T23:59:59.999Z'), 2, false).drop,
    null,
    'an empty BEFORE is left alone',
  );
});

t.test('a month-long partition goes once all of it is older than the retention', async (t) => {
  const layout = [
    range(BEFORE_PARTITION, null, '2026-09-01'),
    range('events_p20260901', '2026-09-01', '2026-10-01'),
    range('events_p20261001', '2026-10-01', '2026-11-01'),
    range('events_p20261101', '2026-11-01', '2026-12-01'),
  ];
  const plan = planPartitions(layout, at('2026-11-15T12:00:00.000Z'), 60, true);
  // The limit is 2026-09-16: September is partly newer, so it stays, and events from its 1st.
  t.same(plan.drop, { names: [BEFORE_PARTITION], keptFrom: day('2026-09-01') });
  const later = planPartitions(layout, at('2026-12-01T00:00:00.000Z'), 60, false);
  t.same(later.drop, {
    names: [BEFORE_PARTITION, 'events_p20260901'],
    keptFrom: day('2026-10-01'),
  });
});
