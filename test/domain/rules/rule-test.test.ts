// The rule test result (spec 2.9, 4.3): failure, success and WARNING shapes.
import t from 'tap';
import { generateDrl } from '../../../src/domain/rules/drl.ts';
import { validateRuleConfig } from '../../../src/domain/rules/rule-config-validation.ts';
import { testRule, type RuleTestInput } from '../../../src/domain/rules/rule-test.ts';
import { fakeMetrics } from './fake-metrics.ts';
import { explainedLeaf } from '../../support/explanations.ts';

const base: RuleTestInput = {
  name: 'High error rate',
  ruleType: 'THRESHOLD',
  ruleConfig: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 5 },
  severity: 'HIGH',
  notificationChannels: ['email'],
};
const metrics = fakeMetrics({
  values: { errorRate: 12.5, totalEvents: 40 },
  keys: ['eventsByType[checkout.failed]'],
});

void t.test('an invalid config: 200-style failure result (spec 4.3 rule 1)', (t) => {
  const result = testRule(
    { ...base, ruleConfig: { metric: 'errRate', operator: 'GREATER', threshold: '5' } },
    metrics,
  );
  t.same(result, {
    success: false,
    message: 'Rule validation failed with 3 errors',
    compilationStatus: 'ERROR',
    generatedDrl: null,
    validationErrors: [
      `Metric 'errRate' not found. Did you mean 'errorRate'?`,
      `Invalid operator 'GREATER'. Did you mean 'GREATER_THAN'?`,
      'Invalid threshold type: expected a number, got string "5"',
    ],
    simulationResult: null,
    recommendations: [],
  });
  t.same(testRule({ ...base, ruleConfig: 'x' }, metrics).validationErrors, [
    'ruleConfig must be an object, got string "x"',
  ]);
  t.equal(
    testRule({ ...base, ruleConfig: {} }, metrics).message,
    'Rule validation failed with 3 errors',
  );
  t.equal(
    testRule({ ...base, ruleConfig: { metric: 'errorRate', operator: 'GREATER_THAN' } }, metrics)
      .message,
    'Rule validation failed with 1 error',
  );
  t.end();
});

void t.test('a DRL that does not compile is the fifth error category', (t) => {
  const result = testRule({ ...base, priority: 1.5 }, metrics);
  t.match(result, {
    success: false,
    compilationStatus: 'ERROR',
    message: 'Rule compilation failed',
    generatedDrl: null,
    simulationResult: null,
    validationErrors: [/^Generated DRL failed to compile: /],
  });
  t.end();
});

void t.test('a valid rule: SUCCESS, its DRL and the simulation (spec 4.3 rule 2)', (t) => {
  const result = testRule(base, metrics);
  const config = validateRuleConfig('THRESHOLD', base.ruleConfig);
  t.ok(config.ok);
  t.same(result, {
    success: true,
    message: 'Rule compiled successfully. The rule would trigger now.',
    compilationStatus: 'SUCCESS',
    generatedDrl: config.ok
      ? generateDrl({
          id: null,
          name: base.name,
          ruleType: 'THRESHOLD',
          severity: 'HIGH',
          priority: 0,
          config: config.config,
        })
      : null,
    validationErrors: [],
    simulationResult: {
      wouldTrigger: true,
      matchedConditions: ['errorRate 12.5 > 5'],
      currentValues: { errorRate: 12.5 },
      explanation: explainedLeaf(),
    },
    recommendations: [],
  });
  const quiet = testRule(
    { ...base, ruleConfig: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 50 } },
    metrics,
  );
  t.equal(quiet.message, 'Rule compiled successfully. The rule would not trigger now.');
  t.match(quiet.simulationResult, {
    wouldTrigger: false,
    matchedConditions: [],
    currentValues: { errorRate: 12.5 },
    explanation: { value: 12.5, comparedWith: 50, result: false },
  });
  t.end();
});

void t.test('a stored rule: its id is in the DRL and a throttle note is in the message', (t) => {
  const result = testRule(
    { ...base, id: 42, priority: 7 },
    metrics,
    'The stored rule is currently suppressed until 2026-11-22T19:45:00.000.',
  );
  t.match(result.generatedDrl, /@ruleId\(42\)\n {4}@ruleType\("THRESHOLD"\)\n {4}salience 7\n/);
  t.equal(
    result.message,
    'Rule compiled successfully. The rule would trigger now. The stored rule is currently suppressed until 2026-11-22T19:45:00.000.',
  );
  t.end();
});

void t.test(
  'WARNING cases: success true, the DRL, the warning in the message, a simulation',
  (t) => {
    const cases: [string, unknown, string][] = [
      [
        'count metric vs non-integer',
        { metric: 'totalEvents', operator: 'GREATER_THAN', threshold: 100.5 },
        `Metric 'totalEvents' counts events, but threshold 100.5 is not an integer`,
      ],
      [
        'errorRate outside 0..100',
        { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 150 },
        `Metric 'errorRate' is a percentage from 0 to 100, but threshold 150 is outside that range`,
      ],
      [
        'indexed key never used',
        { metric: 'eventsByType[checkout.faild]', operator: 'GREATER_THAN', threshold: 0 },
        `No event has used the key 'checkout.faild' of eventsByType since start or the last reset: check the spelling of 'eventsByType[checkout.faild]'`,
      ],
    ];
    for (const [name, ruleConfig, warning] of cases) {
      const result = testRule({ ...base, ruleConfig }, metrics);
      t.match(
        result,
        {
          success: true,
          compilationStatus: 'WARNING',
          generatedDrl: /^\/\/ Generated by Vigil/,
          validationErrors: [],
          simulationResult: {
            wouldTrigger: Boolean,
            matchedConditions: Array,
            currentValues: Object,
          },
        },
        name,
      );
      t.equal(
        result.message,
        `Rule compiled with warnings: ${warning}. The rule would not trigger now.`,
        name,
      );
    }
    const known = testRule(
      {
        ...base,
        ruleConfig: {
          metric: 'eventsByType[checkout.failed]',
          operator: 'GREATER_THAN',
          threshold: 0,
        },
      },
      metrics,
    );
    t.equal(known.compilationStatus, 'SUCCESS', 'a key seen since start is fine');
    t.end();
  },
);

void t.test('RATE_CHANGE without a baseline says why in the message', (t) => {
  const result = testRule(
    {
      ...base,
      ruleType: 'RATE_CHANGE',
      ruleConfig: {
        metric: 'errorRate',
        operator: 'GREATER_THAN',
        threshold: 50,
        windowMinutes: 10,
      },
    },
    fakeMetrics({ values: { errorRate: 10 } }),
  );
  t.equal(result.compilationStatus, 'SUCCESS');
  t.equal(
    result.message,
    'Rule compiled successfully. The rule would not trigger now. No events in the 10 minutes before the last 10: RATE_CHANGE has no baseline to compare with, so the rule does not trigger.',
  );
  t.same(result.simulationResult, {
    wouldTrigger: false,
    matchedConditions: [],
    currentValues: { errorRate: 10, 'previous(errorRate)': 0 },
    explanation: explainedLeaf({
      measure: 'percentChange',
      windowMinutes: 10,
      threshold: 50,
      comparedWith: 50,
      value: null,
      result: false,
    }),
  });
  t.end();
});

void t.test('recommendations come with a passed test', (t) => {
  const result = testRule(
    {
      ...base,
      suppressionWindowMinutes: 0,
      notificationChannels: [],
      ruleConfig: { metric: 'errorRate', operator: 'EQUALS', threshold: 5, windowMinutes: 1 },
    },
    metrics,
  );
  t.equal(result.compilationStatus, 'SUCCESS');
  t.match(result.recommendations, [
    /suppression window/,
    /notification channel/,
    /1-minute window/,
    /EQUALS on 'errorRate'/,
  ]);
  t.end();
});
