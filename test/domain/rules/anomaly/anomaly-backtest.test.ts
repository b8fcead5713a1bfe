// ANOMALY in the backtest: the replay asks for its series' stored history (the live back-fill's
// own request), seeds it, and the replayed events' completed buckets make it fire on a drop, at
// the tick the live evaluator would have fired, with the band in the transition's values.
import t from 'tap';
import type { MetricEvent } from '../../../../src/domain/event.ts';
import type { BackfillRequest } from '../../../../src/domain/rules/anomaly/anomaly-rules.ts';
import { runBacktest } from '../../../../src/domain/rules/backtest/run-backtest.ts';
import { activeRule, events } from '../engine-fixtures.ts';

const HOUR = 3_600_000;
/** 2026-11-23T00:00Z. */
const FROM = Date.UTC(2026, 10, 23);
/** Events an hour: 20 from 00:00 to 06:00 UTC, 200 otherwise. */
const usual = (hourStart: number): number => (new Date(hourStart).getUTCHours() < 6 ? 20 : 200);

const rule = activeRule(
  1,
  {
    metric: 'eventRate',
    eventType: 'checkout',
    bucketMinutes: 60,
    algorithm: 'seasonal',
    direction: 'below',
    alertWindowMinutes: 180,
    minFraction: 0.6,
    minExpected: 10,
    minHistoryMinutes: 2 * 1440,
  },
  { ruleType: 'ANOMALY', suppressionWindowMinutes: 0 },
);

/** The hours from `from` to `to`, each with its events spread over it, 09:00..11:59 dropped. */
async function* chunks(from: number, to: number): AsyncIterable<readonly MetricEvent[]> {
  for (let hour = Math.floor(from / HOUR) * HOUR; hour < to; hour += HOUR) {
    const dropped = hour >= FROM + 9 * HOUR && hour < FROM + 12 * HOUR;
    const count = dropped ? 20 : usual(hour);
    const out: MetricEvent[] = [];
    for (let i = 0; i < count; i++) {
      const at = hour + Math.floor(((i + 0.5) * HOUR) / count);
      if (at >= from && at < to) out.push(...events(1, at, { eventType: 'checkout' }));
    }
    yield out;
  }
}

void t.test(
  'a drop in the replayed range fires with its band; the history comes first',
  async (t) => {
    const asked: BackfillRequest[] = [];
    const result = await runBacktest(
      { rule, from: FROM, to: FROM + 16 * HOUR, evaluationMs: 1000, budgetMs: 60_000, limits: {} },
      {
        chunks,
        silences: [],
        elapsed: () => 0,
        anomalyHistory: (request) => {
          asked.push(request);
          const count = (request.to - request.from) / HOUR;
          return Promise.resolve(
            Array.from({ length: count }, (_, i) => usual(request.from + i * HOUR)),
          );
        },
      },
    );
    t.equal(asked.length, 1, 'one history read for its one series');
    t.match(asked[0], {
      ruleId: 1,
      bucketMinutes: 60,
      read: { metric: 'eventRate', eventType: 'checkout' },
    });
    t.ok(asked[0]!.to <= FROM, 'the history ends before the replay');
    const fired = result.transitions.filter((x) => x.transition === 'FIRING');
    t.equal(fired.length, 1, 'one incident');
    // 09:00 and 10:00 below the band: 2 of the 3 buckets once 10:00 completes (11:00:05).
    t.equal(fired[0]?.at, new Date(FROM + 11 * HOUR + 5000).toISOString());
    t.match(fired[0]?.explanation, {
      measure: 'band',
      observed: 20,
      outsideBuckets: 2,
      windowBuckets: 3,
    });
    t.match(fired[0]?.values, { 'eventRate[eventType=checkout]': 20 });
    t.ok((fired[0]?.values?.['expected(eventRate[eventType=checkout])'] ?? 0) > 150);
    const resolved = result.transitions.filter((x) => x.transition === 'RESOLVED');
    t.equal(resolved.length, 1, 'resolves once the buckets are back in the band');
    // Back in the band from 12:00: one bucket of three outside once 13:00 completes (14:00:05).
    t.equal(resolved[0]?.at, new Date(FROM + 14 * HOUR + 5000).toISOString());
  },
);

void t.test('without its history it stays LEARNING and never fires', async (t) => {
  const result = await runBacktest(
    { rule, from: FROM, to: FROM + 16 * HOUR, evaluationMs: 1000, budgetMs: 60_000, limits: {} },
    { chunks, silences: [], elapsed: () => 0, anomalyHistory: () => Promise.resolve(null) },
  );
  t.same(result.transitions, []);
});
