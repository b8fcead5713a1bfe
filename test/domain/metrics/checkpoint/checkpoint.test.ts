import t from 'tap';
import { Aggregator } from '../../../../src/domain/metrics/aggregator.ts';
import {
  aggregatorToPlain,
  restoreAggregator,
} from '../../../../src/domain/metrics/checkpoint/aggregator-checkpoint.ts';
import {
  CountedEvents,
  MARK_HOLD_MAX_MS,
  idsOf,
  markHas,
} from '../../../../src/domain/metrics/checkpoint/counted-mark.ts';
import {
  decodeCheckpoint,
  encodeCheckpoint,
} from '../../../../src/domain/metrics/checkpoint/metrics-checkpoint.ts';
import type { MetricEvent } from '../../../../src/domain/event.ts';
import { HOUR, MINUTE, SECOND, T0, event, testClock } from '../fixtures.ts';

/** Two hours of varied events: types, sources, users, severities, latencies over 4096 ms. */
function traffic(): MetricEvent[] {
  const out: MetricEvent[] = [];
  for (let i = 0; i < 6000; i++) {
    out.push(
      event(T0 + i * 1200, {
        eventType: `type-${i % 13}`,
        source: `source-${i % 5}`,
        userId: i % 7 === 0 ? null : `user-${i % 301}`,
        severity: i % 11 === 0 ? 'ERROR' : i % 17 === 0 ? 'CRITICAL' : 'INFO',
        latencyMs: i % 97 === 0 ? 5000 + i : i % 250,
      }),
    );
  }
  return out;
}

const roundTrip = (from: Aggregator, clock: () => number): Aggregator => {
  const bytes = encodeCheckpoint({
    takenAt: clock(),
    limits: from.limits,
    mark: new CountedEvents(0).mark(),
    aggregator: aggregatorToPlain(from),
    rules: null,
  });
  const decoded = decodeCheckpoint(bytes);
  if (!decoded.ok) throw new Error(decoded.reason);
  const to = new Aggregator({ ...decoded.content.limits, now: clock });
  restoreAggregator(to, decoded.content.aggregator, decoded.content.limits);
  return to;
};

void t.test(
  'a restored aggregator answers what the saved one does, now and as time passes',
  (t) => {
    const clock = testClock(T0);
    const limits = { maxEventTypes: 10, maxSources: 4, maxTrackedUsers: 200 };
    const saved = new Aggregator({ ...limits, now: clock.now });
    const all = traffic();
    const half = all.length / 2;
    for (let i = 0; i < half; i += 100) {
      clock.set(all[Math.min(i + 99, all.length - 1)]!.receivedAt + SECOND);
      saved.record(all.slice(i, i + 100));
    }
    const restored = roundTrip(saved, clock.now);
    t.same(restored.snapshot(), saved.snapshot(), 'same snapshot at once');
    t.same(restored.history(180), saved.history(180), 'same history');
    // Both go on counting the same events: still the same (so the restored structures are live).
    for (let i = half; i < all.length; i += 100) {
      clock.set(all[Math.min(i + 99, all.length - 1)]!.receivedAt + SECOND);
      saved.record(all.slice(i, i + 100));
      restored.record(all.slice(i, i + 100));
    }
    t.same(restored.snapshot(), saved.snapshot(), 'same snapshot after more events');
    clock.set(T0 + 25 * HOUR);
    t.same(restored.snapshot(), saved.snapshot(), 'same once the first hours left the 24 h');
    t.same(restored.countsSinceStart(), saved.countsSinceStart());
    t.end();
  },
);

void t.test('a reset survives the round trip', (t) => {
  const clock = testClock(T0);
  const saved = new Aggregator({ now: clock.now });
  clock.set(T0 + MINUTE);
  saved.record([event(T0), event(T0 + SECOND)]);
  saved.reset();
  saved.record([event(T0 + MINUTE)]);
  const restored = roundTrip(saved, clock.now);
  t.equal(restored.since, T0 + MINUTE);
  t.same(restored.snapshot(), saved.snapshot());
  t.end();
});

void t.test('a record that is not a checkpoint of this version is refused with a reason', (t) => {
  const good = encodeCheckpoint({
    takenAt: T0,
    limits: { maxEventTypes: 1, maxSources: 1, maxTrackedUsers: 10 },
    mark: new CountedEvents(0).mark(),
    aggregator: {},
    rules: null,
  });
  t.match(decodeCheckpoint(Buffer.from('nonsense')), { ok: false, reason: /VGMC/ });
  const future = Buffer.from(good);
  future.writeUInt32BE(99, 4);
  t.match(decodeCheckpoint(future), { ok: false, reason: /unknown checkpoint format 99/ });
  const cut = good.subarray(0, good.length - 5);
  t.match(decodeCheckpoint(cut), { ok: false, reason: /corrupt|incomplete/ });
  t.end();
});

void t.test('the mark keeps the ids of the overlap and replays from before them', (t) => {
  const counted = new CountedEvents(T0);
  counted.add(1, T0 + SECOND);
  counted.add(3, T0 + 2 * MINUTE);
  counted.add(2, T0 + 2 * MINUTE + SECOND); // committed after 3
  const mark = counted.mark();
  t.equal(mark.from, T0 + MINUTE + SECOND, 'newest receivedAt minus the overlap');
  t.same([...mark.ranges], [2, 3], 'ids 2 and 3: one run');
  counted.reset(T0 + 3 * MINUTE);
  t.same(counted.mark(), { from: T0 + 3 * MINUTE, ranges: new Float64Array(0) });
  t.end();
});

void t.test('without a mark taken, what is kept stays within the overlap', (t) => {
  const counted = new CountedEvents(T0);
  // An hour at 100 events/s: far more than the 1024 first slots, never a mark.
  for (let i = 0; i < 360_000; i++) counted.add(i, T0 + i * 10);
  const mark = counted.mark();
  t.equal(mark.from, T0 + 359_999 * 10 - MINUTE);
  t.same([...mark.ranges], [359_999 - 6000, 359_999], 'the last minute only (both ends)');
  t.end();
});

void t.test('the ranges of a mark: runs of ids, searched and listed', (t) => {
  const counted = new CountedEvents(T0);
  for (const id of [7, 3, 4, 5, 10, 9, 20]) counted.add(id, T0 + SECOND);
  const mark = counted.mark();
  t.same([...mark.ranges], [3, 5, 7, 7, 9, 10, 20, 20]);
  t.same([...idsOf(mark)], [3, 4, 5, 7, 9, 10, 20]);
  const has = [1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 20, 21].filter((id) => markHas(mark, id));
  t.same(has, [3, 4, 5, 7, 9, 10, 20]);
  t.end();
});

void t.test('an incomplete cluster view holds the mark back, at most MARK_HOLD_MAX_MS', (t) => {
  const counted = new CountedEvents(T0);
  counted.add(1, T0 + 2 * MINUTE);
  counted.viewComplete(false); // a peer's batches are late from here
  for (let i = 2; i <= 5; i++) counted.add(i, T0 + i * MINUTE);
  t.equal(counted.mark().from, T0 + MINUTE, 'from stays where it was when the view broke');
  t.same([...counted.mark().ranges], [1, 5], 'with every id counted since');
  counted.add(6, T0 + MINUTE + MARK_HOLD_MAX_MS + 5 * MINUTE);
  t.equal(
    counted.mark().from,
    T0 + 5 * MINUTE + MINUTE,
    'no further back than MARK_HOLD_MAX_MS before the newest',
  );
  counted.viewComplete(true);
  counted.add(7, T0 + MARK_HOLD_MAX_MS + 7 * MINUTE);
  t.equal(counted.mark().from, T0 + MARK_HOLD_MAX_MS + 6 * MINUTE, 'complete again: the overlap');
  t.end();
});

void t.test("a restored mark's ids are kept as long as their events may be replayed", (t) => {
  // The mark of a checkpoint: ids 1..3, received between T0 and T0 + a minute (not kept).
  const counted = new CountedEvents(T0);
  counted.restore({ from: T0, ranges: Float64Array.of(1, 3) }, T0);
  counted.add(4, T0 + MINUTE + 30 * SECOND);
  const mark = counted.mark();
  t.equal(mark.from, T0 + 30 * SECOND);
  t.same([...mark.ranges], [1, 4], 'ids 1..3 may have been received after that from: kept');
  t.end();
});
