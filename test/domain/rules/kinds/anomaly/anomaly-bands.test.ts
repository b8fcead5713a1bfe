// ANOMALY bands on synthetic series with known answers: flat, trend, daily rhythm, level shift,
// low traffic; winsorising, DST-correct seasonal slots, and the fixed memory per algorithm.
import t from 'tap';
import { AnomalySeries } from '../../../../../src/domain/rules/kinds/anomaly/anomaly-series.ts';
import {
  minuteOfLocalWeek,
  LocalClock,
} from '../../../../../src/domain/rules/kinds/anomaly/timezone.ts';
import { config, dailyMean, poisson, random, run } from './series-fixtures.ts';

const outsideAt = (judged: ReturnType<typeof run>, from = 0): number[] =>
  judged.filter((j) => j.outside && j.index >= from).map((j) => j.index);
/** Buckets after which the rule holds (3 buckets, 80 %: all three outside). */
const firesAt = (judged: ReturnType<typeof run>, from = 0): number[] =>
  judged.filter((j) => j.fires && j.index >= from).map((j) => j.index);

void t.test('flat Poisson series: the band is the Poisson band around the mean', (t) => {
  const next = random(1);
  const flat = Array.from({ length: 300 }, () => poisson(100, next));
  for (const algorithm of ['basic', 'robust']) {
    const judged = run(config({ metric: 'eventRate', algorithm }), flat);
    const last = judged.at(-1)!;
    // sqrt(100) ± 3 · 0.5 squared: 72.25 .. 132.25 around 100.
    t.ok(Math.abs(last.expected! - 100) < 4, `${algorithm}: expected ${last.expected} ≈ 100`);
    t.ok(last.lower! > 65 && last.lower! < 80, `${algorithm}: lower ${last.lower} ≈ 72`);
    t.ok(last.upper! > 122 && last.upper! < 140, `${algorithm}: upper ${last.upper} ≈ 132`);
    t.ok(outsideAt(judged).length <= 3, `${algorithm}: noise at 3σ leaves at most 1 % outside`);
  }
  t.end();
});

void t.test('a drop on a flat series is outside the band, a spike above it', (t) => {
  const next = random(2);
  const values = Array.from({ length: 200 }, () => poisson(100, next));
  values[150] = 40;
  values[180] = 180;
  const both = run(config({ metric: 'eventRate', algorithm: 'robust' }), values);
  t.ok(both[150]!.outside && both[180]!.outside);
  const below = run(
    config({ metric: 'eventRate', algorithm: 'robust', direction: 'below' }),
    values,
  );
  t.ok(below[150]!.outside, 'below sees the drop');
  t.notOk(below[180]!.outside, 'below ignores the spike');
  t.end();
});

void t.test('a slow trend is followed, not flagged', (t) => {
  const next = random(3);
  const trend = Array.from({ length: 600 }, (_, i) => poisson(100 + i * 0.5, next));
  for (const algorithm of ['basic', 'robust']) {
    const judged = run(config({ metric: 'eventRate', algorithm }), trend);
    t.ok(outsideAt(judged).length <= 3, `${algorithm}: ${outsideAt(judged).join(',')}`);
    const last = judged.at(-1)!;
    t.ok(last.expected! > 350, `${algorithm}: the baseline followed the trend to ${last.expected}`);
  }
  t.end();
});

void t.test(
  'a level shift is flagged at first and accepted later (winsorised, not at once)',
  (t) => {
    const next = random(4);
    const shift = Array.from({ length: 700 }, (_, i) => poisson(i < 300 ? 100 : 300, next));
    const judged = run(config({ metric: 'eventRate', algorithm: 'robust' }), shift);
    const after = outsideAt(judged, 300);
    // Every one of the first 20 buckets after the shift is outside: it is not the new normal yet.
    t.same(
      after.slice(0, 20),
      Array.from({ length: 20 }, (_, i) => 300 + i),
    );
    t.same(firesAt(judged, 450), [], 'accepted within 150 buckets: the rule no longer holds');
    t.ok(outsideAt(judged, 450).length <= 3, 'single noisy buckets only');
    t.ok(Math.abs(judged.at(-1)!.expected! - 300) < 15);
    t.end();
  },
);

void t.test('one spike moves the baseline by at most the band edge (winsorising)', (t) => {
  const cfg = config({ metric: 'eventRate', algorithm: 'basic' });
  const calm = Array.from({ length: 100 }, () => 100);
  const spiked = [...calm, 10_000, 100];
  const plain = run(cfg, [...calm, 100, 100]).at(-1)!;
  const after = run(cfg, spiked).at(-1)!;
  t.ok(
    after.expected! - plain.expected! < 2,
    `expected moved ${after.expected! - plain.expected!}`,
  );
  t.end();
});

void t.test(
  'daily rhythm: robust flags the nightly trough, seasonal does not; seasonal sees a drop',
  (t) => {
    const next = random(5);
    const days = 7 * 288;
    const daily = Array.from({ length: days }, (_, i) => poisson(dailyMean(i, 20, 200), next));
    const below = { metric: 'eventRate', direction: 'below' };
    const robust = run(config({ ...below, algorithm: 'robust' }), daily);
    t.ok(
      outsideAt(robust, 3 * 288).length > 5,
      'a baseline without seasons reads the night as a drop',
    );
    const seasonal = run(config({ ...below, algorithm: 'seasonal' }), daily);
    t.same(firesAt(seasonal, 3 * 288), [], 'the seasonal band expects the trough: never fires');
    t.ok(outsideAt(seasonal, 3 * 288).length <= 3, 'at most single noisy buckets');
    const noon = 6 * 288 + 144;
    const dropped = daily.map((v, i) => (i >= noon && i < noon + 6 ? Math.round(v * 0.3) : v));
    const judged = run(config({ ...below, algorithm: 'seasonal' }), dropped);
    t.same(firesAt(judged, 3 * 288), [noon + 2, noon + 3, noon + 4, noon + 5]);
    const drop = [noon, noon + 1, noon + 2, noon + 3, noon + 4, noon + 5];
    t.ok(
      drop.every((i) => judged[i]!.outside),
      'every dropped bucket is outside',
    );
    const at = judged[noon]!;
    t.ok(
      at.expected! > 150 && at.lower! > at.observed,
      `band ${at.lower}..${at.upper} vs ${at.observed}`,
    );
    t.end();
  },
);

void t.test(
  'low traffic: no infinite z-scores, minExpected leaves a quiet series unjudged',
  (t) => {
    const next = random(6);
    const low = Array.from({ length: 500 }, () => poisson(0.5, next));
    for (const algorithm of ['basic', 'robust']) {
      t.same(outsideAt(run(config({ metric: 'eventRate', algorithm }), low)), [], algorithm);
    }
    const flat = Array.from({ length: 100 }, () => 0);
    flat.push(1, 0, 0, 2);
    t.same(outsideAt(run(config({ metric: 'eventRate', algorithm: 'robust' }), [5, ...flat])), []);
    const burst = [...low.slice(0, 100), 40];
    t.ok(run(config({ metric: 'eventRate', algorithm: 'robust' }), burst).at(-1)!.outside);
    const quiet = run(config({ metric: 'eventRate', algorithm: 'robust', minExpected: 5 }), burst);
    t.notOk(quiet.at(-1)!.outside, 'expected below minExpected: not judged');
    t.end();
  },
);

void t.test('minDeviation widens the band; errorRate is judged in percentage points', (t) => {
  const values = Array.from({ length: 100 }, (_, i) => 2 + (i % 2) * 0.2);
  const tight = run(config({ metric: 'errorRate', algorithm: 'robust' }), [...values, 4]).at(-1)!;
  t.ok(tight.outside, `2 % → 4 % leaves ${tight.lower}..${tight.upper}`);
  const wide = run(config({ metric: 'errorRate', algorithm: 'robust', minDeviation: 5 }), [
    ...values,
    4,
  ]).at(-1)!;
  t.notOk(wide.outside);
  t.ok(wide.upper! >= wide.expected! + 5);
  t.end();
});

void t.test('LEARNING until minHistoryMinutes is covered from the first bucket with data', (t) => {
  const series = new AnomalySeries(
    config({
      metric: 'eventRate',
      algorithm: 'robust',
      bucketMinutes: 1,
      alertWindowMinutes: 1,
      minFraction: 1,
      minHistoryMinutes: 30,
    }),
  );
  for (let i = 0; i < 10; i++) series.observe(i * 60_000, 0);
  t.equal(series.status().historyMinutes, 0, 'zeros before the first event are no history');
  for (let i = 10; i < 39; i++) series.observe(i * 60_000, 100);
  t.ok(series.learning);
  series.observe(39 * 60_000, 0);
  t.notOk(series.learning, '30 minutes covered');
  t.equal(series.status().historyMinutes, 30);
  t.ok(series.holds(), 'a drop to 0 after the history is covered fires');
  t.end();
});

void t.test('seasonal slots follow local time across DST (Europe/Paris, 2026-10-25)', (t) => {
  const before = Date.UTC(2026, 9, 24, 7, 0); // 09:00 CEST, Saturday
  const after = Date.UTC(2026, 9, 26, 8, 0); // 09:00 CET, Monday
  t.equal(minuteOfLocalWeek(before, 'Europe/Paris') % 1440, 9 * 60);
  t.equal(minuteOfLocalWeek(after, 'Europe/Paris') % 1440, 9 * 60);
  const clock = new LocalClock('Asia/Kolkata');
  t.equal(clock.minuteOfWeek(Date.UTC(2026, 10, 2, 0, 10)), 5 * 60 + 40, 'a +05:30 zone');
  // A daily seasonal series learnt in Paris: 09:00 local is one slot on both sides of the change.
  const cfg = config({
    metric: 'eventRate',
    algorithm: 'seasonal',
    timezone: 'Europe/Paris',
    bucketMinutes: 60,
    minHistoryMinutes: 0,
  });
  const series = new AnomalySeries(cfg);
  const start = Date.UTC(2026, 9, 20);
  for (let h = 0; h < 24 * 9; h++) {
    const at = start + h * 3_600_000;
    const local = minuteOfLocalWeek(at, 'Europe/Paris') % 1440;
    series.observe(at, local === 9 * 60 ? 500 : 50);
  }
  const last = series.status().last!;
  t.equal(last.outside, false, 'the 09:00 peak after the change is expected');
  t.end();
});

void t.test('fixed memory per algorithm, whatever the history', (t) => {
  const bytes = (raw: Record<string, unknown>): number => {
    const series = new AnomalySeries(config({ metric: 'eventRate', ...raw }));
    for (let i = 0; i < 5000; i++) series.observe(i * series.bucketMs, 100);
    return series.status().baselineBytes;
  };
  t.equal(bytes({ algorithm: 'basic' }), 24);
  t.equal(bytes({ algorithm: 'robust' }), 480);
  t.equal(bytes({ algorithm: 'seasonal', bucketMinutes: 5 }), 288 * 8);
  t.equal(bytes({ algorithm: 'seasonal', seasonality: 'weekly', bucketMinutes: 5 }), 2016 * 8);
  t.end();
});
