// ANOMALY ruleConfig: defaults, every key's 400 message with its reason and did-you-mean, and the
// DRL generated and parsed back (golden text, random configs, jsonb key order, tampering).
import t from 'tap';
import fc from 'fast-check';
import { compileDrl, generateDrl, type DrlRule } from '../../../../../src/domain/rules/drl.ts';
import { parseDrl } from '../../../../../src/domain/rules/drl-parser.ts';
import { validateRuleConfig } from '../../../../../src/domain/rules/rule-config-validation.ts';
import {
  ANOMALY_ALGORITHMS,
  ANOMALY_METRICS,
  BUCKET_MINUTES,
  DIRECTIONS,
} from '../../../../../src/domain/rules/kinds/anomaly/anomaly-config.ts';
import { conditionText } from '../../../../../src/domain/rules/condition-text.ts';
import type { RuleConfig } from '../../../../../src/domain/rules/rule-types.ts';

const errorsOf = (config: unknown): readonly string[] => {
  const v = validateRuleConfig('ANOMALY', config);
  return v.ok ? [] : v.errors;
};
const valid = (config: unknown): RuleConfig => {
  const v = validateRuleConfig('ANOMALY', config);
  if (!v.ok) throw new Error(v.errors.join('; '));
  return v.config;
};

void t.test('a minimal config gets its defaults', (t) => {
  t.same(valid({ metric: 'eventRate' }), {
    metric: 'eventRate',
    bucketMinutes: 5,
    algorithm: 'robust',
    bounds: 3,
    direction: 'both',
    alertWindowMinutes: 15,
    minFraction: 0.8,
    minExpected: 0,
    minDeviation: 0,
    minHistoryMinutes: 300,
  });
  t.same(
    valid({
      metric: 'errorRate',
      algorithm: 'seasonal',
      eventType: 'checkout',
      pendingSeconds: 60,
    }),
    {
      metric: 'errorRate',
      eventType: 'checkout',
      bucketMinutes: 5,
      algorithm: 'seasonal',
      seasonality: 'daily',
      timezone: 'UTC',
      bounds: 3,
      direction: 'both',
      alertWindowMinutes: 15,
      minFraction: 0.8,
      minExpected: 0,
      minDeviation: 0,
      minHistoryMinutes: 4320,
      pendingSeconds: 60,
    },
  );
  t.end();
});

void t.test('every key is checked, with why and a did-you-mean', (t) => {
  const cases: [unknown, string[]][] = [
    [
      {},
      [
        "Missing required property 'metric': one of eventRate, errorRate, latencyP50, latencyP95, latencyP99, uniqueUsers",
      ],
    ],
    [{ metric: 'eventrate' }, [`Invalid metric "eventrate". Did you mean 'eventRate'?`]],
    [{ metric: 'totalEvents' }, [`Invalid metric "totalEvents". Did you mean 'eventRate'?`]],
    [
      { metric: 'eventRate', bucket: 5 },
      [`Unknown property 'bucket'. Did you mean 'bucketMinutes'?`],
    ],
    [
      { metric: 'eventRate', algoritm: 'basic' },
      [`Unknown property 'algoritm'. Did you mean 'algorithm'?`],
    ],
    [
      { metric: 'eventRate', filter: {} },
      ["Unknown property 'filter': set eventType or source on the top level of ruleConfig"],
    ],
    [
      { metric: 'eventRate', algorithm: 'agile' },
      [`Invalid algorithm "agile". Did you mean 'robust'?`],
    ],
    [
      { metric: 'eventRate', bucketMinutes: 7 },
      [
        'Invalid bucketMinutes 7: must be one of 1, 2, 5, 10, 15, 30, 60 (divisors of an hour, so that buckets start on local hours). Did you mean 5?',
      ],
    ],
    [
      { metric: 'eventRate', bucketMinutes: '5' },
      [
        'Invalid bucketMinutes "5": must be one of 1, 2, 5, 10, 15, 30, 60 (divisors of an hour, so that buckets start on local hours)',
      ],
    ],
    [
      { metric: 'latencyP95', eventType: 'x' },
      [
        'latencyP95 is read over all events: eventType and source filter only eventRate and errorRate (the live buckets keep latency and users per minute, not per type or source)',
      ],
    ],
    [
      { metric: 'eventRate', eventType: 'a', source: 'b' },
      [
        'Set eventType or source, not both: the live minute buckets count events per type and per source, not per pair',
      ],
    ],
    [
      { metric: 'eventRate', eventType: '' },
      ['Invalid eventType "": must be a non-empty string of at most 255 characters'],
    ],
    [
      { metric: 'eventRate', seasonality: 'daily' },
      ['seasonality applies to the seasonal algorithm only, not to robust'],
    ],
    [
      { metric: 'eventRate', algorithm: 'seasonal', seasonality: 'hourly' },
      [`Invalid seasonality "hourly". Did you mean 'daily'?`],
    ],
    [
      { metric: 'eventRate', algorithm: 'seasonal', timezone: 'Europe/Pari' },
      [`Invalid timezone 'Europe/Pari'. Did you mean 'Europe/Paris'?`],
    ],
    [
      { metric: 'eventRate', algorithm: 'seasonal', seasonality: 'weekly', bucketMinutes: 1 },
      [
        'A weekly season of 1-minute buckets has 10080 slots, more than the 2016 a series may hold: use bucketMinutes of at least 5',
      ],
    ],
    [
      { metric: 'eventRate', bounds: 0 },
      [
        'Invalid bounds 0: must be a number above 0 and at most 20 (the band is expected ± bounds robust standard deviations)',
      ],
    ],
    [
      { metric: 'eventRate', direction: 'down' },
      [`Invalid direction "down". Did you mean 'below'?`],
    ],
    [
      { metric: 'eventRate', alertWindowMinutes: 12 },
      ['Invalid alertWindowMinutes 12: must be a whole number of 5-minute buckets, e.g. 10'],
    ],
    [
      { metric: 'eventRate', alertWindowMinutes: 400 },
      [
        'Invalid alertWindowMinutes 400: must be an integer from 5 to 300 (from one to 60 buckets of 5 minutes)',
      ],
    ],
    [
      { metric: 'eventRate', minFraction: 0 },
      [
        `Invalid minFraction 0: must be a number above 0 and at most 1 (the share of the alert window’s buckets that must lie outside the band)`,
      ],
    ],
    [
      { metric: 'eventRate', minExpected: -1 },
      ['Invalid minExpected -1: must be a number from 0 to 1.7976931348623157e+308'],
    ],
    [
      { metric: 'eventRate', minHistoryMinutes: 40000 },
      [
        'Invalid minHistoryMinutes 40000: must be an integer from 0 to 30240 (at most 21 days are back-filled from stored events)',
      ],
    ],
    [
      { metric: 'eventRate', pendingSeconds: -1 },
      ['Invalid pendingSeconds -1: must be an integer from 0 to 86400'],
    ],
  ];
  for (const [config, errors] of cases) t.same(errorsOf(config), errors, JSON.stringify(config));
  t.same(errorsOf([]), ['ruleConfig must be an object, got array']);
  t.end();
});

const HEAD = `// Generated by Vigil from the rule; regenerated on every change. Do not edit.
package vigil.rules;

import vigil.metrics.MetricsSnapshot;
import vigil.alerts.Alert;
`;

void t.test('golden DRL of a seasonal rule, parsed back', (t) => {
  const rule: DrlRule = {
    id: 7,
    name: 'Checkout drop',
    ruleType: 'ANOMALY',
    severity: 'HIGH',
    priority: 5,
    config: valid({
      metric: 'eventRate',
      eventType: 'checkout',
      algorithm: 'seasonal',
      timezone: 'Europe/Paris',
      direction: 'below',
      minExpected: 10,
      keepFiringSeconds: 300,
    }),
  };
  const drl = generateDrl(rule);
  t.equal(
    drl,
    `${HEAD}
rule "Checkout drop"
    @ruleId(7)
    @ruleType("ANOMALY")
    @keepFiringSeconds(300)
    salience 5
    no-loop true
    when
        $m : MetricsSnapshot()
        $a : AnomalyBand( metric == "eventRate", eventType == "checkout", bucketMinutes == 5, algorithm == "seasonal", seasonality == "daily", timezone == "Europe/Paris", bounds == 3.0, direction == "below", minExpected == 10.0, minDeviation == 0.0, minHistoryMinutes == 4320 ) from $m
        eval( $a.outsideFraction(15) >= 0.8 )
    then
        insert(new Alert(7L, "Checkout drop", "HIGH"));
end
`,
  );
  t.ok(compileDrl(rule).ok);
  t.equal(
    conditionText('ANOMALY', rule.config),
    'eventRate[eventType=checkout] below the seasonal (daily, Europe/Paris) band ±3σ in ≥ 80% of 15 min [5-min buckets]',
  );
  const tampered = drl.replace('bounds == 3.0', 'bounds == 4.0');
  const parsed = parseDrl(tampered);
  t.ok(parsed.ok && parsed.rule.anomaly?.bounds === 4, 'the parser reads what the text says');
  t.match(parseDrl(drl.replace('direction ==', 'directions ==')), {
    ok: false,
    error: /expected an ANOMALY key after the previous one/,
  });
  t.end();
});

void t.test('random valid configs round-trip through the DRL, whatever their key order', (t) => {
  const arbitrary = fc.record(
    {
      metric: fc.constantFrom(...ANOMALY_METRICS),
      bucketMinutes: fc.constantFrom(...BUCKET_MINUTES.filter((b) => b >= 5)),
      algorithm: fc.constantFrom(...ANOMALY_ALGORITHMS),
      bounds: fc.double({ min: 0.01, max: 20, noNaN: true }),
      direction: fc.constantFrom(...DIRECTIONS),
      minFraction: fc.double({ min: 0.01, max: 1, noNaN: true }),
      minExpected: fc.double({ min: 0, max: 1e6, noNaN: true }),
      minDeviation: fc.double({ min: 0, max: 1e6, noNaN: true }),
      minHistoryMinutes: fc.integer({ min: 0, max: 30240 }),
      pendingSeconds: fc.integer({ min: 0, max: 86400 }),
    },
    { requiredKeys: ['metric'] },
  );
  fc.assert(
    fc.property(arbitrary, fc.string(), (raw, name) => {
      const config = valid(raw);
      const rule: DrlRule = {
        id: 1,
        name,
        ruleType: 'ANOMALY',
        severity: 'LOW',
        priority: 0,
        config,
      };
      const compiled = compileDrl(rule);
      if (!compiled.ok) throw new Error(compiled.error);
      // Read back from jsonb, keys come sorted: the same rule, the same text.
      const sorted = Object.fromEntries(
        Object.entries(config).sort(([a], [b]) => a.localeCompare(b)),
      );
      const again = compileDrl({ ...rule, config: sorted });
      return again.ok && again.drl === compiled.drl;
    }),
  );
  t.end();
});
