// ANOMALY end to end on the real service: a week of stored events seeded straight into PostgreSQL
// (timestamps in the past), rules created over it are back-filled from the storage pool, the one
// whose last hours dropped fires with its band, the one ending in its nightly trough does not.
import t from 'tap';
import { startTestService } from '../support/service.ts';
import { ruleBody, rulesApi, type TestResult } from '../support/rules.ts';

/** The file's own tap: a service started inside a subtest would stop at the subtest's end. */
const file = t;
// hourEnd() may wait for the next hour to begin (up to 150 s) before the seeded week is written.
file.setTimeout(420_000);
let svc = await startTestService(file);
let api = rulesApi(svc);
const HOUR = 3_600_000;

/**
 * The hour buckets a back-fill asked at `now` covers end at the last whole hour (5 s grace); if
 * an hour turns while the test runs, the seeded pattern would be read an hour off: start after it.
 */
async function hourEnd(): Promise<number> {
  for (;;) {
    const now = Date.now();
    const intoHour = now % HOUR;
    if (intoHour > 10_000 && intoHour < HOUR - 150_000) return now - intoHour;
    await new Promise((resolve) => setTimeout(resolve, 5_000));
  }
}

/** One event per unit of `counts(k)` in the hour that ends k hours before `end` (k = 1..168). */
async function seedWeek(
  eventType: string,
  end: number,
  count: (k: number) => number,
): Promise<number> {
  const hours = Array.from({ length: 168 }, (_, i) => i + 1);
  const counts = hours.map(count);
  await svc.db.sql`
    INSERT INTO events (event_type, ts, source, severity, received_at, processing_latency_ms)
    SELECT ${eventType}, at, 'web', 'INFO', at, 5
    FROM unnest(${hours}::int[], ${counts}::int[]) AS h(k, n),
         generate_series(1, h.n) AS g(i),
         LATERAL (SELECT to_timestamp((${end}::float8 - h.k * ${HOUR}::float8 + g.i * 1000) / 1000) AS at) AS x`;
  return counts.reduce((a, b) => a + b, 0);
}

/** 20 events an hour in the 6 hours before the end of each day of the pattern, 200 otherwise. */
const trough = (k: number): number => ((k - 1) % 24 < 6 ? 20 : 200);

const anomalyConfig = (eventType: string): Record<string, unknown> => ({
  metric: 'eventRate',
  eventType,
  bucketMinutes: 60,
  algorithm: 'seasonal',
  seasonality: 'daily',
  timezone: 'UTC',
  direction: 'below',
  alertWindowMinutes: 180,
  minFraction: 0.6,
  minExpected: 10,
  // Back-filled: 6 days of history, then the alert window judged: within the seeded week.
  minHistoryMinutes: 6 * 1440,
});

/** Polls the stored rule's test until its live series has learnt the seeded week. */
async function learnt(id: number): Promise<TestResult> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const result = await api.testStored(id);
    if (result.recommendations.some((r) => r.startsWith('this rule has learnt 147 buckets')))
      return result;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`rule ${id} never learnt its stored history`);
}

interface AlertRow {
  rule_id: number;
  current_values: Record<string, number>;
  explanation: Record<string, unknown>;
  explanation_text: string;
}

async function alertsOf(ruleId: number): Promise<AlertRow[]> {
  return svc.db.sql<AlertRow[]>`
    SELECT rule_id, current_values, explanation, explanation_text FROM alerts WHERE rule_id = ${ruleId}`;
}

let end = 0;
const ids = { quiet: 0, dropped: 0 };

void t.test(
  'a seeded week: the drop fires with its band, the nightly trough does not',
  async (t) => {
    end = await hourEnd();
    // checkout: its last 6 hours are the nightly trough, as on every day before.
    await seedWeek('checkout', end, trough);
    // payment: the same rhythm 12 hours later; its last 3 (daytime) hours dropped to a tenth.
    await seedWeek('payment', end, (k) => (k <= 3 ? 20 : trough(k + 12)));

    // Created first: its back-fill is answered first (they are read one after the other).
    const quiet = await api.create(
      ruleBody('checkout anomaly', { ruleType: 'ANOMALY', ruleConfig: anomalyConfig('checkout') }),
    );
    t.match(
      quiet.generatedDrl,
      /\$a : AnomalyBand\( metric == "eventRate", eventType == "checkout", bucketMinutes == 60, algorithm == "seasonal"/,
    );
    const dropped = await api.create(
      ruleBody('payment anomaly', { ruleType: 'ANOMALY', ruleConfig: anomalyConfig('payment') }),
    );

    const quietTest = await learnt(quiet.id);
    t.match(quietTest.simulationResult, {
      wouldTrigger: false,
      explanation: { measure: 'band', observed: 20, outsideBuckets: 0, learning: false },
    });
    const band = quietTest.simulationResult?.explanation as { expected: number; lower: number };
    t.ok(Math.abs(band.expected - 20) < 1, `the trough is expected: ${JSON.stringify(band)}`);
    t.match(quietTest.message, /The rule would not trigger now/);

    let fired: AlertRow[] = [];
    for (let attempt = 0; attempt < 600 && fired.length === 0; attempt++) {
      fired = await alertsOf(dropped.id);
      if (fired.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    t.equal(fired.length, 1, 'the drop fired once');
    const [alert] = fired;
    t.match(alert?.explanation, {
      measure: 'band',
      eventType: 'payment',
      observed: 20,
      outsideBuckets: 3,
      windowBuckets: 3,
      result: true,
    });
    const explained = alert?.explanation as { expected: number; lower: number; upper: number };
    t.ok(explained.expected > 150 && explained.lower > 20, `band ${JSON.stringify(explained)}`);
    t.match(alert?.current_values, {
      'eventRate[eventType=payment]': 20,
      'expected(eventRate[eventType=payment])': explained.expected,
      'lower(eventRate[eventType=payment])': explained.lower,
      'upper(eventRate[eventType=payment])': explained.upper,
    });
    t.match(alert?.explanation_text, /^eventRate\[eventType=payment\] per 60 min = 20, band /);
    // Both were judged on every tick since their back-fills; checkout's came first.
    t.same(await alertsOf(quiet.id), [], 'the nightly trough did not fire');
    ids.quiet = quiet.id;
    ids.dropped = dropped.id;
  },
);

void t.test('the backtest of the stored rule decides what the live rule did', async (t) => {
  // From 6 hours before the seeded week's end: the drop is its last 3 hours.
  const res = await svc.request('/api/v1/rules/backtest', {
    json: { ruleId: ids.dropped, from: end - 6 * HOUR, to: end + 10_000 },
  });
  t.equal(res.status, 200);
  const result = (await res.json()) as {
    transitions: { transition: string; at: string; explanation: Record<string, unknown> }[];
  };
  t.match(result.transitions, [
    {
      transition: 'FIRING',
      // 2 of the 3 buckets below the band once the second dropped hour completed.
      at: new Date(end - HOUR + 5000).toISOString(),
      explanation: { measure: 'band', observed: 20, outsideBuckets: 2, result: true },
    },
  ]);
  t.equal(result.transitions.length, 1);
});

/** The evaluator's tick count (GET /rules/evaluation-stats). */
async function ticks(): Promise<number> {
  const res = await svc.request('/api/v1/rules/evaluation-stats?last=1');
  return ((await res.json()) as { ticks: number }).ticks;
}

/** Waits until the evaluator ran `n` more ticks: every rule was judged again since. */
async function moreTicks(n: number): Promise<void> {
  const from = await ticks();
  while ((await ticks()) < from + n) await new Promise((resolve) => setTimeout(resolve, 100));
}

void t.test(
  'enabling and a restart back-fill again; the open incident is not fired twice',
  async (t) => {
    if (Date.now() >= end + HOUR - 30_000) {
      t.comment('the hour of the seeded week is ending: its buckets would shift, skipped');
      return;
    }
    await api.action(ids.quiet, 'disable');
    const paused = await api.testStored(ids.quiet);
    t.ok(
      paused.recommendations.some((r) => r.startsWith('the live metrics')),
      'a paused rule is simulated on the live metrics',
    );
    await api.action(ids.quiet, 'enable');
    t.match((await learnt(ids.quiet)).simulationResult, { wouldTrigger: false });

    await svc.service.stop();
    svc = await startTestService(file, {}, { database: svc.db });
    api = rulesApi(svc);
    const again = await learnt(ids.dropped);
    t.match(again.message, /The rule is FIRING/, 'FIRING restored from the open incident');
    t.match(again.simulationResult, {
      wouldTrigger: true,
      explanation: { observed: 20, outsideBuckets: 3 },
    });
    await learnt(ids.quiet);
    await moreTicks(2);
    t.equal((await alertsOf(ids.dropped)).length, 1, 'still one incident after the restart');
    t.same(await alertsOf(ids.quiet), []);
  },
);

void t.test(
  'bad ANOMALY configs are 400 naming why; the rule test reports LEARNING history',
  async (t) => {
    const res = await api.send(
      'POST',
      '',
      ruleBody('bad anomaly', {
        ruleType: 'ANOMALY',
        ruleConfig: { metric: 'eventRate', algorithm: 'seasonal', timezone: 'Europe/Pari' },
      }),
    );
    t.equal(res.status, 400);
    const body = (await res.json()) as { errors: Record<string, string> };
    t.same(body.errors, {
      ruleConfig: "Invalid timezone 'Europe/Pari'. Did you mean 'Europe/Paris'?",
    });
    const result = await api.test(
      ruleBody('fresh', {
        ruleType: 'ANOMALY',
        ruleConfig: { metric: 'eventRate', eventType: 'nothing-yet' },
      }),
    );
    t.equal(result.success, true);
    t.match(result.message, /LEARNING: 0 of 300 minutes of history covered/);
    t.ok(
      result.recommendations.some((r) =>
        /hold 0 buckets of 5 min \(0 min of history\); minHistoryMinutes needs 60: once ACTIVE the rule back-fills/.test(
          r,
        ),
      ),
      'how much history there is',
    );
  },
);
