// ANOMALY in the backtest: the replay asks for its series' stored history (the live back-fill's
// own request), seeds it, and the replayed events' completed buckets make it fire on a drop, at
// the tick the live evaluator would have fired, with the band in the transition's values.
import t from 'tap';
import type { MetricEvent } from '../../../../../src/domain/event.ts';
import type { BackfillRequest } from '../../../../../src/domain/rules/kinds/anomaly/anomaly-rules.ts';
import type { BandChartSeries } from '../../../../../src/domain/rules/backtest/backtest-result.ts';
import { ChartRecorder } from '../../../../../src/domain/rules/backtest/chart-series.ts';
import { runBacktest } from '../../../../../src/domain/rules/backtest/run-backtest.ts';
import { activeRule, events } from '../../engine-fixtures.ts';

const HOUR = 3_600_000;
/** 2026-11-23T00:00Z. */
const FROM = Date.UTC(2026, 10, 23);
/** Events an hour: 20 from 00:00 to 06:00 UTC, 200 otherwise. */
const usual = (hourStart: number): number => (new Date(hourStart).getUTCHours() < 6 ? 20 : 200);

const CONFIG = {
  metric: 'eventRate',
  eventType: 'checkout',
  bucketMinutes: 60,
  algorithm: 'seasonal',
  direction: 'below',
  alertWindowMinutes: 180,
  minFraction: 0.6,
  minExpected: 10,
  minHistoryMinutes: 2 * 1440,
};
const rule = activeRule(1, CONFIG, { ruleType: 'ANOMALY', suppressionWindowMinutes: 0 });

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

/** The 16 hours replayed, with the stored history before them (the usual hours) or none. */
const replayed = (withHistory: boolean, replayedRule = rule) =>
  runBacktest(
    {
      rule: replayedRule,
      from: FROM,
      to: FROM + 16 * HOUR,
      evaluationMs: 1000,
      budgetMs: 60_000,
      limits: {},
    },
    {
      chunks,
      silences: [],
      elapsed: () => 0,
      anomalyHistory: (request) =>
        Promise.resolve(
          withHistory
            ? Array.from({ length: (request.to - request.from) / HOUR }, (_, i) =>
                usual(request.from + i * HOUR),
              )
            : null,
        ),
    },
  );

void t.test('without its history it stays LEARNING and never fires', async (t) => {
  const result = await replayed(false);
  t.same(result.transitions, []);
});

void t.test('the chart draws the observed value with its band, point by point', async (t) => {
  const { chart, transitions } = await replayed(true);
  t.equal(chart.stepMs, 60_000, 'a point a minute over 16 hours');
  t.equal(chart.times.length, 16 * 60);
  t.equal(chart.series.length, 1, 'one series: the rule has one');
  const series = chart.series[0] as BandChartSeries;
  t.match(series, {
    kind: 'band',
    label: 'eventRate[eventType=checkout] per 60 min',
    direction: 'below',
  });
  for (const column of [series.values, series.expected, series.lower, series.upper])
    t.equal(column.length, chart.times.length, 'a value (or null) per point');
  const at = (ms: number): number => chart.times.indexOf(ms);
  // 10:30: the 09:00 bucket (the drop) is the last completed, below its band.
  const drop = at(FROM + 10.5 * HOUR);
  t.equal(series.values[drop], 20, 'the observed value of the dropped bucket');
  t.ok((series.lower[drop] ?? 0) > 20, 'under the lower bound');
  t.ok((series.expected[drop] ?? 0) > 150, 'the expected value of a usual hour');
  // 15:30: back in the band.
  const back = at(FROM + 15.5 * HOUR);
  t.equal(series.values[back], 200);
  t.ok(
    (series.lower[back] ?? Infinity) <= 200 && 200 <= (series.upper[back] ?? -Infinity),
    'the usual hour inside its band',
  );
  let ordered = true;
  series.expected.forEach((expected, i) => {
    if (expected === null) return;
    const lower = series.lower[i] ?? null;
    const upper = series.upper[i] ?? null;
    if (lower === null || upper === null || lower > expected || expected > upper) ordered = false;
  });
  t.ok(ordered, 'lower <= expected <= upper wherever there is a band');
  // The values at the FIRING are those of the chart at the same bucket.
  const fired = transitions.find((x) => x.transition === 'FIRING');
  t.equal(
    series.lower[at(FROM + 11.5 * HOUR)],
    fired?.values?.['lower(eventRate[eventType=checkout])'],
    'the band drawn is the band judged',
  );
});

/** The same with a basic baseline: it estimates after 10 buckets, LEARNING for 2 days still. */
const basic = activeRule(
  2,
  { ...CONFIG, algorithm: 'basic' },
  { ruleType: 'ANOMALY', suppressionWindowMinutes: 0 },
);

void t.test(
  'no band while LEARNING, though the baseline estimates: the observed value only',
  async (t) => {
    const { chart } = await replayed(false, basic);
    const series = chart.series[0] as BandChartSeries;
    t.equal(series.kind, 'band');
    t.ok(
      series.values.some((v) => v === 20) && series.values.some((v) => v === 200),
      'the observed buckets are drawn',
    );
    t.same(
      [series.expected, series.lower, series.upper].map((column) =>
        column.filter((v) => v !== null),
      ),
      [[], [], []],
      'the band is null at every point',
    );
  },
);

void t.test('a PATTERN rule has no chart series', (t) => {
  const recorder = new ChartRecorder('PATTERN', { withinMinutes: 5, steps: [] }, FROM, 60_000);
  recorder.add(FROM, {});
  t.same(recorder.chart(), { stepMs: 60_000, times: [FROM], series: [] });
  t.end();
});
