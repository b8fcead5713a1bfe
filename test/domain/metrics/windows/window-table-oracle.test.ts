// The per-tick window table against the plain loop over minute buckets, on random histories of up
// to 26 h (caps small enough to reach `(other)` and the HyperLogLog estimate), every metric, any
// window, last and previous, read in any order.
import fc from 'fast-check';
import t from 'tap';
import { SEVERITIES, type MetricEvent } from '../../../../src/domain/event.ts';
import {
  SCALAR_METRICS,
  type MetricRef,
  type ScalarMetric,
} from '../../../../src/domain/metrics/windows/metric-names.ts';
import { LastEventTimes } from '../../../../src/domain/metrics/state/last-event-times.ts';
import { MetricsState } from '../../../../src/domain/metrics/state/metrics-state.ts';
import { recordEvents } from '../../../../src/domain/metrics/state/record-events.ts';
import { WindowReads } from '../../../../src/domain/metrics/windows/window-reads.ts';
import { WindowTable } from '../../../../src/domain/metrics/windows/window-table.ts';
import { MINUTE, SECOND, T0 } from '../fixtures.ts';
import { valueOver, windowRange } from './naive-window-values.ts';

const LIMITS = { maxEventTypes: 3, maxSources: 2, maxTrackedUsers: 6 };
const KEYS = ['a', 'b', 'c', 'd', '(other)'];

const eventArb = fc.record({
  eventType: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
  source: fc.constantFrom('s1', 's2', 's3'),
  userId: fc.option(fc.constantFrom(...Array.from({ length: 10 }, (_, i) => `u${i}`))),
  severity: fc.constantFrom(...SEVERITIES),
  // Whole ms, as the storage workers measure them: sums of them are exact.
  latencyMs: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 5000 })),
  /** How long before the batch's clock reading the event was received. */
  lateMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 4 * MINUTE })),
});

/** Clock steps between batches: mostly seconds and minutes, some hours (the 24 h roll over). */
const stepArb = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 90 * SECOND }), weight: 5 },
  { arbitrary: fc.integer({ min: 0, max: 20 * MINUTE }), weight: 3 },
  { arbitrary: fc.integer({ min: 0, max: 7 * 60 * MINUTE }), weight: 1 },
);

const batchesArb = fc.array(
  fc.record({ step: stepArb, events: fc.array(eventArb, { maxLength: 20 }) }),
  { minLength: 1, maxLength: 40 },
);

const refArb: fc.Arbitrary<MetricRef> = fc.oneof(
  fc
    .constantFrom(...SCALAR_METRICS)
    .map((name: ScalarMetric): MetricRef => ({ kind: 'scalar', name })),
  fc
    .tuple(
      fc.constantFrom('eventsByType' as const, 'eventsBySource' as const),
      fc.constantFrom(...KEYS, 's1', 's3'),
    )
    .map(([map, key]): MetricRef => ({ kind: 'indexed', map, key })),
  fc
    .constantFrom(...SEVERITIES, 'BOGUS')
    .map((key): MetricRef => ({ kind: 'indexed', map: 'eventsBySeverity', key })),
);

const windowArb = fc.oneof(
  fc.integer({ min: 1, max: 70 }),
  fc.integer({ min: 1, max: 1440 }),
  fc.constantFrom(1, 2, 60, 61, 720, 1439, 1440),
);

const readsArb = fc.array(fc.record({ ref: refArb, window: windowArb, previous: fc.boolean() }), {
  minLength: 1,
  maxLength: 60,
});

/** Compares every read of a table at `now` with the plain loop, in an order drawn from `seed`. */
function check(state: MetricsState, now: number, wanted: readonly ReadInput[], seed: number): void {
  const reads = new WindowReads();
  const slots = wanted.map(({ ref, window, previous }) => reads.slot(ref, window, previous));
  const table = new WindowTable(state, now, reads, new LastEventTimes(LIMITS, T0));
  // Any order: the first read of a group fills the others.
  const order = slots.map((slot, i) => ({ slot, i, key: (i * 7919 + seed) % slots.length }));
  order.sort((a, b) => a.key - b.key);
  for (const { slot, i } of order) {
    const { ref, window, previous } = wanted[i]!;
    const expected = valueOver(state, ref, windowRange(state, window, previous), now);
    const actual = table.get(slot);
    if (!Object.is(actual, expected)) {
      throw new Error(
        `${JSON.stringify(ref)} over ${window} min${previous ? ' (previous)' : ''} at ${now - T0} ms: ${actual}, expected ${expected}`,
      );
    }
  }
}

interface ReadInput {
  readonly ref: MetricRef;
  readonly window: number;
  readonly previous: boolean;
}

void t.test(
  'after every batch, every value of a table equals the plain loop over the window',
  (t) => {
    fc.assert(
      fc.property(batchesArb, readsArb, fc.nat(), (batches, wanted, seed) => {
        const start = T0 + 17 * SECOND;
        const state = new MetricsState(LIMITS, start);
        let now = start;
        // A table per batch, as a tick per second: values kept across ticks must follow late events.
        for (const batch of batches) {
          now += batch.step;
          state.advance(now);
          const events = batch.events.map(({ lateMs, ...fields }): MetricEvent => ({
            ...fields,
            receivedAt: now - lateMs,
          }));
          recordEvents(state, events, now);
          check(state, now, wanted, seed);
        }
      }),
      { numRuns: 200 },
    );
    t.pass('agree');
    t.end();
  },
);
