// Evaluator: every operator, nested trees and their explanations, RATE_CHANGE baselines, speed.
import t from 'tap';
import fc from 'fast-check';
import {
  explainRule,
  holds,
  holdsWhileFiring,
  type EvaluationResult,
  PreparedSet,
} from '../../../src/domain/rules/evaluator.ts';
import { evaluateRule, prepareRule, ruleHolds } from '../../../src/domain/rules/rule-evaluation.ts';
import { validateRuleConfig } from '../../../src/domain/rules/rule-config-validation.ts';
import type { RuleConfig, RuleType } from '../../../src/domain/rules/rule-types.ts';
import { explanationText } from '../../../src/domain/rules/explanation.ts';
import { fakeMetrics } from './fake-metrics.ts';

const valid = (input: unknown, ruleType: RuleType = 'THRESHOLD'): RuleConfig => {
  const v = validateRuleConfig(ruleType, input);
  if (!v.ok) throw new Error(v.errors.join('; '));
  return v.config;
};
const leaf = (metric: string, operator: string, threshold: number, windowMinutes?: number) =>
  windowMinutes === undefined
    ? { metric, operator, threshold }
    : { metric, operator, threshold, windowMinutes };

/** A result without its explanation tree (its own tests below). */
const brief = ({
  explanation: _,
  ...rest
}: EvaluationResult): Omit<EvaluationResult, 'explanation'> => rest;

void t.test('the explanation: every leaf with its value and result, every node its result', (t) => {
  const metrics = fakeMetrics({ values: { errorRate: 0.083, 'eventsByType[checkout]': 3 } });
  const config = valid({
    logicalOperator: 'AND',
    conditions: [
      leaf('errorRate', 'GREATER_THAN', 0.05),
      {
        logicalOperator: 'NOT',
        conditions: [leaf('eventsByType[checkout]', 'LESS_THAN', 1, 10)],
      },
    ],
  });
  const result = evaluateRule('THRESHOLD', config, metrics);
  t.same(result.explanation, {
    logicalOperator: 'AND',
    result: true,
    conditions: [
      {
        metric: 'errorRate',
        key: null,
        measure: 'value',
        windowMinutes: 5,
        operator: 'GREATER_THAN',
        threshold: 0.05,
        recoveryThreshold: null,
        comparedWith: 0.05,
        value: 0.083,
        result: true,
      },
      {
        logicalOperator: 'NOT',
        result: true,
        conditions: [
          {
            metric: 'eventsByType[checkout]',
            key: 'checkout',
            measure: 'value',
            windowMinutes: 10,
            operator: 'LESS_THAN',
            threshold: 1,
            recoveryThreshold: null,
            comparedWith: 1,
            value: 3,
            result: false,
          },
        ],
      },
    ],
  });
  t.equal(
    explanationText(result.explanation),
    'errorRate over 5 min = 0.083 > 0.05; NOT (eventsByType[checkout] over 10 min = 3 < 1)',
  );
  const rate = evaluateRule(
    'RATE_CHANGE',
    valid(leaf('totalEvents', 'GREATER_THAN', 50), 'RATE_CHANGE'),
    fakeMetrics({ values: { totalEvents: 30 }, previous: { totalEvents: 10 } }),
  );
  t.match(rate.explanation, { measure: 'percentChange', value: 200, result: true });
  t.equal(
    explanationText(rate.explanation),
    'percent change of totalEvents over 5 min vs the 5 before = 200 > 50',
  );
  t.equal(explanationText(evaluateRule('ANOMALY', {}, metrics).explanation), '');
  t.end();
});

void t.test('hysteresis: while FIRING a leaf compares with its recoveryThreshold', (t) => {
  const config = valid({ ...leaf('errorRate', 'GREATER_THAN', 0.05), recoveryThreshold: 0.03 });
  const set = new PreparedSet();
  const rule = prepareRule('THRESHOLD', config, set);
  const at = (errorRate: number) => fakeMetrics({ values: { errorRate } }).valuesOf(set.reads);
  t.equal(holds(rule, at(0.04)), false, 'not above the threshold: does not fire');
  t.equal(holdsWhileFiring(rule, at(0.04)), true, 'still above the recovery threshold');
  t.equal(holdsWhileFiring(rule, at(0.03)), false, 'at the recovery threshold: resolves');
  const recovering = explainRule(rule, at(0.04), true);
  t.match(recovering, {
    wouldTrigger: true,
    matchedConditions: [],
    explanation: { threshold: 0.05, recoveryThreshold: 0.03, comparedWith: 0.03, result: true },
  });
  // Without a recovery threshold the firing path is the plain condition.
  const plain = prepareRule('THRESHOLD', valid(leaf('errorRate', 'LESS_THAN', 1)), set);
  t.equal(plain.recoveryStart, plain.start);
  t.end();
});

void t.test('a single condition: value over its window, matched text', (t) => {
  const metrics = fakeMetrics({ values: { errorRate: 12.5 } });
  t.same(brief(evaluateRule('THRESHOLD', valid(leaf('errorRate', 'GREATER_THAN', 5)), metrics)), {
    wouldTrigger: true,
    matchedConditions: ['errorRate 12.5 > 5'],
    currentValues: { errorRate: 12.5 },
  });
  t.same(metrics.reads, ['errorRate@5'], 'read once, over the default 5-minute window');
  t.same(brief(evaluateRule('THRESHOLD', valid(leaf('errorRate', 'LESS_THAN', 5)), metrics)), {
    wouldTrigger: false,
    matchedConditions: [],
    currentValues: { errorRate: 12.5 },
  });
  t.end();
});

void t.test('every operator', (t) => {
  const metrics = fakeMetrics({ values: { totalEvents: 10 } });
  const table: [string, number, boolean][] = [
    ['GREATER_THAN', 10, false],
    ['GREATER_THAN', 9, true],
    ['GREATER_THAN_OR_EQUAL', 10, true],
    ['GREATER_THAN_OR_EQUAL', 11, false],
    ['LESS_THAN', 10, false],
    ['LESS_THAN', 11, true],
    ['LESS_THAN_OR_EQUAL', 10, true],
    ['LESS_THAN_OR_EQUAL', 9, false],
    ['EQUALS', 10, true],
    ['EQUALS', 10.5, false],
    ['NOT_EQUALS', 10, false],
    ['NOT_EQUALS', 3, true],
  ];
  for (const [operator, threshold, expected] of table) {
    const config = valid(leaf('totalEvents', operator, threshold));
    t.equal(
      evaluateRule('THRESHOLD', config, metrics).wouldTrigger,
      expected,
      `${operator} ${threshold}`,
    );
    t.equal(ruleHolds('THRESHOLD', config, metrics), expected);
  }
  t.end();
});

void t.test('nested AND / OR / NOT: matched conditions say what made it true', (t) => {
  const metrics = fakeMetrics({
    values: {
      errorRate: 12.5,
      totalEvents: 4,
      'eventsByType[checkout.failed]': 3,
      'latencyP99@15': 900,
      latencyP99: 100,
    },
  });
  const config = valid({
    logicalOperator: 'AND',
    conditions: [
      leaf('errorRate', 'GREATER_THAN', 5),
      {
        logicalOperator: 'OR',
        windowMinutes: 15,
        conditions: [
          leaf('latencyP99', 'GREATER_THAN', 800),
          leaf('eventsByType[checkout.failed]', 'GREATER_THAN', 10),
        ],
      },
      { logicalOperator: 'NOT', conditions: [leaf('totalEvents', 'LESS_THAN', 0)] },
    ],
  });
  const result = evaluateRule('THRESHOLD', config, metrics);
  t.same(brief(result), {
    wouldTrigger: true,
    matchedConditions: ['errorRate 12.5 > 5', 'latencyP99 900 > 800', 'NOT (totalEvents 4 < 0)'],
    currentValues: {
      errorRate: 12.5,
      latencyP99: 900,
      'eventsByType[checkout.failed]': 3,
      totalEvents: 4,
    },
  });
  t.same(
    metrics.reads.sort(),
    ['errorRate@5', 'eventsByType[checkout.failed]@15', 'latencyP99@15', 'totalEvents@5'],
    'each leaf read once over its effective window',
  );

  const notOfAnd = valid({
    logicalOperator: 'NOT',
    conditions: [
      {
        logicalOperator: 'AND',
        conditions: [
          leaf('errorRate', 'GREATER_THAN', 50),
          {
            logicalOperator: 'OR',
            conditions: [leaf('totalEvents', 'LESS_THAN', 0), leaf('totalEvents', 'EQUALS', 4)],
          },
        ],
      },
    ],
  });
  t.same(evaluateRule('THRESHOLD', notOfAnd, metrics).matchedConditions, [
    'NOT (errorRate 12.5 > 50 AND (totalEvents 4 < 0 OR totalEvents 4 == 4))',
  ]);
  const notNot = valid({
    logicalOperator: 'NOT',
    conditions: [{ logicalOperator: 'NOT', conditions: [leaf('totalEvents', 'EQUALS', 4)] }],
  });
  t.same(evaluateRule('THRESHOLD', notNot, metrics).matchedConditions, [
    'NOT (NOT (totalEvents 4 == 4))',
  ]);
  const falseAnd = valid({
    logicalOperator: 'AND',
    conditions: [leaf('errorRate', 'GREATER_THAN', 5), leaf('totalEvents', 'GREATER_THAN', 100)],
  });
  t.same(brief(evaluateRule('THRESHOLD', falseAnd, metrics)), {
    wouldTrigger: false,
    matchedConditions: [],
    currentValues: { errorRate: 12.5, totalEvents: 4 },
  });
  t.end();
});

void t.test(
  'currentValues: names as written; the same metric over another window is not hidden',
  (t) => {
    const metrics = fakeMetrics({ values: { 'errorRate@5': 1, 'errorRate@60': 2 } });
    const config = valid({
      logicalOperator: 'OR',
      conditions: [
        leaf('errorRate', 'GREATER_THAN', 5),
        leaf('errorRate', 'GREATER_THAN', 5, 60),
        leaf('errorRate', 'LESS_THAN', 0),
      ],
    });
    t.same(evaluateRule('THRESHOLD', config, metrics).currentValues, {
      errorRate: 1,
      'errorRate (last 60 min)': 2,
    });
    t.end();
  },
);

void t.test('RATE_CHANGE: percent change between the last window and the one before', (t) => {
  const config = valid(leaf('errorRate', 'GREATER_THAN', 50, 10), 'RATE_CHANGE');
  const up = fakeMetrics({
    values: { errorRate: 12 },
    previous: { errorRate: 6, totalEvents: 100 },
  });
  t.same(brief(evaluateRule('RATE_CHANGE', config, up)), {
    wouldTrigger: true,
    matchedConditions: ['percentChange(errorRate) 100 > 50'],
    currentValues: { errorRate: 12, 'previous(errorRate)': 6, 'percentChange(errorRate)': 100 },
  });
  t.equal(ruleHolds('RATE_CHANGE', config, up), true);
  t.ok(up.reads.includes('previous totalEvents@10') && up.reads.includes('errorRate@10'));

  const down = fakeMetrics({
    values: { errorRate: 3 },
    previous: { errorRate: 6, totalEvents: 100 },
  });
  t.same(brief(evaluateRule('RATE_CHANGE', config, down)), {
    wouldTrigger: false,
    matchedConditions: [],
    currentValues: { errorRate: 3, 'previous(errorRate)': 6, 'percentChange(errorRate)': -50 },
  });
  const drop = valid(leaf('totalEvents', 'LESS_THAN', -40, 10), 'RATE_CHANGE');
  const fewer = fakeMetrics({ values: { totalEvents: 50 }, previous: { totalEvents: 100 } });
  t.equal(evaluateRule('RATE_CHANGE', drop, fewer).wouldTrigger, true);

  const noBaseline = fakeMetrics({
    values: { errorRate: 12 },
    previous: { errorRate: 0, totalEvents: 0 },
  });
  t.same(brief(evaluateRule('RATE_CHANGE', config, noBaseline)), {
    wouldTrigger: false,
    matchedConditions: [],
    currentValues: { errorRate: 12, 'previous(errorRate)': 0 },
    note: 'No events in the 10 minutes before the last 10: RATE_CHANGE has no baseline to compare with, so the rule does not trigger',
  });
  t.equal(ruleHolds('RATE_CHANGE', config, noBaseline), false);
  const notEquals = valid(leaf('errorRate', 'NOT_EQUALS', 50, 10), 'RATE_CHANGE');
  t.equal(
    ruleHolds('RATE_CHANGE', notEquals, noBaseline),
    false,
    'no baseline is never "not equal"',
  );

  const fromZero = fakeMetrics({
    values: { errorRate: 5 },
    previous: { errorRate: 0, totalEvents: 10 },
  });
  t.same(brief(evaluateRule('RATE_CHANGE', config, fromZero)), {
    wouldTrigger: false,
    matchedConditions: [],
    currentValues: { errorRate: 5, 'previous(errorRate)': 0 },
    note: 'errorRate was 0 in the 10 minutes before the last 10: a percent change from 0 is undefined, so the rule does not trigger',
  });
  const flatZero = fakeMetrics({
    values: { errorRate: 0 },
    previous: { errorRate: 0, totalEvents: 10 },
  });
  t.same(
    brief(
      evaluateRule('RATE_CHANGE', valid(leaf('errorRate', 'EQUALS', 0), 'RATE_CHANGE'), flatZero),
    ),
    {
      wouldTrigger: true,
      matchedConditions: ['percentChange(errorRate) 0 == 0'],
      currentValues: { errorRate: 0, 'previous(errorRate)': 0, 'percentChange(errorRate)': 0 },
    },
  );
  t.end();
});

void t.test('ANOMALY and PATTERN are not evaluated', (t) => {
  const metrics = fakeMetrics();
  t.same(brief(evaluateRule('ANOMALY', {}, metrics)), {
    wouldTrigger: false,
    matchedConditions: [],
    currentValues: {},
    note: 'ANOMALY rules are not evaluated yet',
  });
  t.equal(ruleHolds('PATTERN', {}, metrics), false);
  t.same(metrics.reads, []);
  t.end();
});

void t.test('the cache is keyed by config object and rule type', (t) => {
  const config = valid(leaf('errorRate', 'GREATER_THAN', 50));
  const metrics = fakeMetrics({
    values: { errorRate: 60 },
    previous: { errorRate: 60, totalEvents: 5 },
  });
  t.equal(ruleHolds('THRESHOLD', config, metrics), true, 'errorRate 60 > 50');
  t.equal(ruleHolds('RATE_CHANGE', config, metrics), false, 'change 0 % is not > 50');
  t.equal(ruleHolds('THRESHOLD', config, metrics), true);
  t.end();
});

void t.test('an unvalidated config is refused loudly', (t) => {
  t.throws(() =>
    prepareRule(
      'THRESHOLD',
      { metric: 'nope', operator: 'EQUALS', threshold: 1, windowMinutes: 5 },
      new PreparedSet(),
    ),
  );
  t.end();
});

/** Random validated trees over a few metrics with random values: the two paths agree. */
const metricNames = ['errorRate', 'totalEvents', 'avgLatency', 'eventsByType[a]'] as const;
const leafArb = fc.record({
  metric: fc.constantFrom(...metricNames),
  operator: fc.constantFrom(
    'GREATER_THAN',
    'GREATER_THAN_OR_EQUAL',
    'LESS_THAN',
    'LESS_THAN_OR_EQUAL',
    'EQUALS',
    'NOT_EQUALS',
  ),
  threshold: fc.integer({ min: 0, max: 4 }),
});
const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small' },
    leafArb,
    fc.record({
      logicalOperator: fc.constantFrom('AND', 'OR'),
      conditions: fc.array(tie('tree'), { minLength: 1, maxLength: 3 }),
    }),
    fc.record({ logicalOperator: fc.constant('NOT'), conditions: fc.tuple(tie('tree')) }),
  ),
}));

void t.test(
  'property: the quick path agrees with the detailed one; true is never unexplained',
  (t) => {
    fc.assert(
      fc.property(
        tree,
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 4, maxLength: 4 }),
        (input, vs) => {
          const config = valid(input);
          const values = Object.fromEntries(metricNames.map((m, i) => [m, vs[i] ?? 0]));
          const metrics = fakeMetrics({ values });
          const set = new PreparedSet();
          const prepared = prepareRule('THRESHOLD', config, set);
          const detailed = explainRule(prepared, metrics.valuesOf(set.reads));
          return (
            holds(prepared, metrics.valuesOf(set.reads)) === detailed.wouldTrigger &&
            detailed.wouldTrigger === detailed.matchedConditions.length > 0
          );
        },
      ),
      { numRuns: 500 },
    );
    t.pass('agree');
    t.end();
  },
);

/** A RATE_CHANGE leaf over one of the metrics, any operator, thresholds around 0 and +-50 %. */
const rateArb = fc.record({
  metric: fc.constantFrom(...metricNames),
  operator: leafArb.map((l) => l.operator),
  threshold: fc.constantFrom(-50, 0, 50),
});

void t.test('property: many rules compiled into one set each agree with their own tree', (t) => {
  fc.assert(
    fc.property(
      fc.array(
        fc.oneof(
          tree.map((c) => ['THRESHOLD', c] as const),
          rateArb.map((c) => ['RATE_CHANGE', c] as const),
        ),
        {
          minLength: 1,
          maxLength: 80,
        },
      ),
      fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 12, maxLength: 12 }),
      (inputs, vs) => {
        const values = Object.fromEntries(metricNames.map((m, i) => [m, vs[i] ?? 0]));
        const previous = Object.fromEntries(metricNames.map((m, i) => [m, vs[i + 4] ?? 0]));
        previous['totalEvents'] = vs[8] ?? 0;
        const metrics = fakeMetrics({ values, previous });
        const set = new PreparedSet();
        const rules = inputs.map(([ruleType, input]) =>
          prepareRule(ruleType, valid(input, ruleType), set),
        );
        const slots = metrics.valuesOf(set.reads);
        return rules.every((rule) => holds(rule, slots) === explainRule(rule, slots).wouldTrigger);
      },
    ),
    { numRuns: 300 },
  );
  t.pass('agree');
  t.end();
});
