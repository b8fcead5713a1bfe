// ruleConfig validation (exact DESIGN 6 messages), suggestions, WARNING cases and recommendations.
import t from 'tap';
import { validateRuleConfig } from '../../../src/domain/rules/rule-config-validation.ts';
import { recommendations, ruleWarnings } from '../../../src/domain/rules/rule-advice.ts';
import { editDistance, suggest } from '../../../src/domain/suggest.ts';
import type { RuleType } from '../../../src/domain/rules/rule-types.ts';
import { fakeMetrics } from './fake-metrics.ts';

const leaf = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  metric: 'errorRate',
  operator: 'GREATER_THAN',
  threshold: 5,
  ...over,
});

void t.test('valid configs are normalised: every leaf carries its effective window', (t) => {
  const cases: { name: string; type: RuleType; input: unknown; config: unknown }[] = [
    {
      name: 'single condition gets the default window 5',
      type: 'THRESHOLD',
      input: leaf(),
      config: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 5, windowMinutes: 5 },
    },
    {
      name: 'own window kept; key order normalised',
      type: 'THRESHOLD',
      input: { windowMinutes: 1440, threshold: -2.5, operator: 'LESS_THAN', metric: 'latencyP99' },
      config: { metric: 'latencyP99', operator: 'LESS_THAN', threshold: -2.5, windowMinutes: 1440 },
    },
    {
      name: 'indexed metric with any key',
      type: 'THRESHOLD',
      input: leaf({ metric: 'eventsByType[checkout "failed"]', operator: 'EQUALS', threshold: 0 }),
      config: {
        metric: 'eventsByType[checkout "failed"]',
        operator: 'EQUALS',
        threshold: 0,
        windowMinutes: 5,
      },
    },
    {
      name: 'nested: leaves inherit the nearest ancestor window, node window kept as written',
      type: 'THRESHOLD',
      input: {
        logicalOperator: 'OR',
        windowMinutes: 10,
        conditions: [
          leaf(),
          {
            logicalOperator: 'NOT',
            conditions: [leaf({ metric: 'totalEvents', operator: 'LESS_THAN', threshold: 0 })],
          },
          {
            logicalOperator: 'AND',
            windowMinutes: 60,
            conditions: [leaf({ windowMinutes: 2 }), leaf({ metric: 'eventsBySeverity[ERROR]' })],
          },
        ],
      },
      config: {
        logicalOperator: 'OR',
        conditions: [
          { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 5, windowMinutes: 10 },
          {
            logicalOperator: 'NOT',
            conditions: [
              { metric: 'totalEvents', operator: 'LESS_THAN', threshold: 0, windowMinutes: 10 },
            ],
          },
          {
            logicalOperator: 'AND',
            conditions: [
              { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 5, windowMinutes: 2 },
              {
                metric: 'eventsBySeverity[ERROR]',
                operator: 'GREATER_THAN',
                threshold: 5,
                windowMinutes: 60,
              },
            ],
            windowMinutes: 60,
          },
        ],
        windowMinutes: 10,
      },
    },
    {
      name: 'AND with one condition',
      type: 'THRESHOLD',
      input: { logicalOperator: 'AND', conditions: [leaf()] },
      config: {
        logicalOperator: 'AND',
        conditions: [
          { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 5, windowMinutes: 5 },
        ],
      },
    },
    {
      name: '-0 becomes 0',
      type: 'THRESHOLD',
      input: leaf({ threshold: -0 }),
      config: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 0, windowMinutes: 5 },
    },
    {
      name: 'RATE_CHANGE single condition, window up to 720',
      type: 'RATE_CHANGE',
      input: leaf({ threshold: 50, windowMinutes: 720 }),
      config: { metric: 'errorRate', operator: 'GREATER_THAN', threshold: 50, windowMinutes: 720 },
    },
  ];
  for (const c of cases) {
    const result = validateRuleConfig(c.type, c.input);
    t.same(result, { ok: true, config: c.config }, c.name);
    if (result.ok)
      t.ok(Object.is((result.config as { threshold?: number }).threshold, -0) === false);
  }
  t.end();
});

void t.test('invalid configs give the exact messages of DESIGN 6', (t) => {
  const cases: { name: string; type?: RuleType; input: unknown; errors: string[] }[] = [
    {
      name: 'operator suggestion',
      input: leaf({ operator: 'GREATER' }),
      errors: [`Invalid operator 'GREATER'. Did you mean 'GREATER_THAN'?`],
    },
    {
      name: 'metric suggestion',
      input: leaf({ metric: 'errRate' }),
      errors: [`Metric 'errRate' not found. Did you mean 'errorRate'?`],
    },
    {
      name: 'operator symbols, abbreviations and case are understood in the suggestion',
      input: {
        logicalOperator: 'AND',
        conditions: [
          leaf({ operator: '>=' }),
          leaf({ operator: 'lt' }),
          leaf({ operator: 'greater_than' }),
        ],
      },
      errors: [
        `conditions[0]: Invalid operator '>='. Did you mean 'GREATER_THAN_OR_EQUAL'?`,
        `conditions[1]: Invalid operator 'lt'. Did you mean 'LESS_THAN'?`,
        `conditions[2]: Invalid operator 'greater_than'. Did you mean 'GREATER_THAN'?`,
      ],
    },
    {
      name: 'operator with nothing close',
      input: leaf({ operator: 'BETWEEN' }),
      errors: [
        `Invalid operator 'BETWEEN'. Valid operators: GREATER_THAN, GREATER_THAN_OR_EQUAL, LESS_THAN, LESS_THAN_OR_EQUAL, EQUALS, NOT_EQUALS`,
      ],
    },
    {
      name: 'metric with nothing close lists the metrics',
      input: leaf({ metric: 'cpu' }),
      errors: [
        `Metric 'cpu' not found. Available metrics: totalEvents, eventsPerSecond, avgLatency, errorRate, uniqueUsers, uniqueSources, uniqueEventTypes, latencyP50, latencyP95, latencyP99, latencyMin, latencyMax, currentThroughput, peakThroughput, totalErrors, eventsByType[<eventType>], eventsBySource[<source>], eventsBySeverity[<SEVERITY>], secondsSinceLastEvent, secondsSinceLastEventByType[<eventType>], secondsSinceLastEventBySource[<source>]`,
      ],
    },
    {
      name: 'indexed metric: misspelt map, missing key, bad severity',
      input: {
        logicalOperator: 'OR',
        conditions: [
          leaf({ metric: 'eventByType[checkout]' }),
          leaf({ metric: 'eventsBySource' }),
          leaf({ metric: 'eventsBySource[]' }),
          leaf({ metric: 'eventsBySeverity[error]' }),
          leaf({ metric: 'eventsBySeverity[FATAL]' }),
        ],
      },
      errors: [
        `conditions[0]: Metric 'eventByType[checkout]' not found. Did you mean 'eventsByType[checkout]'?`,
        `conditions[1]: Metric 'eventsBySource' needs a key, as in eventsBySource[<key>]`,
        `conditions[2]: Metric 'eventsBySource[]' needs a key, as in eventsBySource[<key>]`,
        `conditions[3]: Metric 'eventsBySeverity[error]' not found. Did you mean 'eventsBySeverity[ERROR]'?`,
        `conditions[4]: Metric 'eventsBySeverity[FATAL]' not found. Severities are INFO, WARNING, ERROR, CRITICAL`,
      ],
    },
    {
      name: 'threshold must be a JSON number',
      input: leaf({ threshold: '5' }),
      errors: [`Invalid threshold type: expected a number, got string "5"`],
    },
    {
      name: 'threshold null, boolean, object',
      input: {
        logicalOperator: 'AND',
        conditions: [leaf({ threshold: null }), leaf({ threshold: true }), leaf({ threshold: {} })],
      },
      errors: [
        'conditions[0]: Invalid threshold type: expected a number, got null',
        'conditions[1]: Invalid threshold type: expected a number, got boolean true',
        'conditions[2]: Invalid threshold type: expected a number, got object',
      ],
    },
    {
      name: 'missing required properties, each named',
      input: {},
      errors: [
        `Missing required property 'metric'`,
        `Missing required property 'operator'`,
        `Missing required property 'threshold'`,
      ],
    },
    {
      name: 'metric and operator must be strings',
      input: leaf({ metric: 5, operator: ['>'] }),
      errors: [
        `Property 'metric' must be a string, got number 5`,
        `Property 'operator' must be a string, got array`,
      ],
    },
    {
      name: 'window bounds and type',
      input: {
        logicalOperator: 'AND',
        conditions: [
          leaf({ windowMinutes: 0 }),
          leaf({ windowMinutes: 1441 }),
          leaf({ windowMinutes: 2.5 }),
          leaf({ windowMinutes: '5' }),
          leaf({ windowMinutes: [[[5]]] }),
        ],
      },
      errors: [
        'conditions[0]: Invalid windowMinutes 0: must be an integer from 1 to 1440',
        'conditions[1]: Invalid windowMinutes 1441: must be an integer from 1 to 1440',
        'conditions[2]: Invalid windowMinutes 2.5: must be an integer from 1 to 1440',
        'conditions[3]: Invalid windowMinutes "5": must be an integer from 1 to 1440',
        'conditions[4]: Invalid windowMinutes array: must be an integer from 1 to 1440',
      ],
    },
    {
      name: 'a node window is checked too',
      input: { logicalOperator: 'AND', windowMinutes: -1, conditions: [leaf()] },
      errors: ['Invalid windowMinutes -1: must be an integer from 1 to 1440'],
    },
    {
      name: 'NOT takes exactly one condition',
      input: { logicalOperator: 'NOT', conditions: [leaf(), leaf()] },
      errors: ['NOT takes exactly one condition, got 2'],
    },
    {
      name: 'AND / OR need at least one',
      input: {
        logicalOperator: 'AND',
        conditions: [
          { logicalOperator: 'OR', conditions: [] },
          { logicalOperator: 'NOT', conditions: [] },
        ],
      },
      errors: [
        'conditions[0]: OR needs at least one condition',
        'conditions[1]: NOT takes exactly one condition, got 0',
      ],
    },
    {
      name: 'logical operator: suggestion, missing, not a string',
      input: {
        logicalOperator: 'AND',
        conditions: [
          { logicalOperator: 'BOTH', conditions: [leaf()] },
          { logicalOperator: 'or', conditions: [leaf()] },
          { conditions: [leaf()] },
          { logicalOperator: 1, conditions: [leaf()] },
        ],
      },
      errors: [
        `conditions[0]: Invalid logical operator 'BOTH'. Valid logical operators: AND, OR, NOT`,
        `conditions[1]: Invalid logical operator 'or'. Did you mean 'OR'?`,
        `conditions[2]: Missing required property 'logicalOperator'`,
        `conditions[3]: Property 'logicalOperator' must be a string, got number 1`,
      ],
    },
    {
      name: 'conditions missing or not an array; a condition not an object',
      input: {
        logicalOperator: 'AND',
        conditions: [{ logicalOperator: 'OR' }, { logicalOperator: 'OR', conditions: {} }, 'x'],
      },
      errors: [
        `conditions[0]: Missing required property 'conditions'`,
        `conditions[1]: Property 'conditions' must be an array, got object`,
        `conditions[2]: Condition must be an object, got string "x"`,
      ],
    },
    {
      name: 'unknown keys, with a suggestion when close',
      input: { metric: 'errorRate', operator: 'GREATER_THAN', treshold: 5, severity: 'x' },
      errors: [
        `Unknown property 'treshold'. Did you mean 'threshold'?`,
        `Unknown property 'severity'`,
        `Missing required property 'threshold'`,
      ],
    },
    {
      name: 'leaf keys on a logical node are unknown there',
      input: { logicalOperator: 'AND', conditions: [leaf()], metric: 'errorRate' },
      errors: [`Unknown property 'metric'`],
    },
    {
      name: 'deep paths name the condition',
      input: {
        logicalOperator: 'AND',
        conditions: [leaf(), { logicalOperator: 'NOT', conditions: [leaf({ operator: 'GT' })] }],
      },
      errors: [`conditions[1].conditions[0]: Invalid operator 'GT'. Did you mean 'GREATER_THAN'?`],
    },
    {
      name: 'ruleConfig not an object',
      input: [leaf()],
      errors: ['ruleConfig must be an object, got array'],
    },
    {
      name: 'ANOMALY: its own keys (test/domain/rules/kinds/anomaly has every case)',
      type: 'ANOMALY',
      input: { sensitivity: 'high', metric: 'eventRate' },
      errors: [
        "Unknown property 'sensitivity'. ANOMALY keys are metric, eventType, source, bucketMinutes, algorithm, seasonality, timezone, bounds, direction, alertWindowMinutes, minFraction, minExpected, minDeviation, minHistoryMinutes, pendingSeconds, keepFiringSeconds",
      ],
    },
    {
      name: 'PATTERN: an empty object lacks its required keys',
      type: 'PATTERN',
      input: {},
      errors: [
        'partitionBy is required: the event field whose value keeps sequences apart, one of userId, sessionId, source, tags.<key>',
        'withinMinutes is required: the longest time, in minutes, from the first event of a sequence to its last (at most 1440)',
        'steps is required: 1 to 8 steps, each { eventType, where, times, contiguity }',
      ],
    },
    {
      name: 'ANOMALY and not an object',
      type: 'ANOMALY',
      input: 'x',
      errors: ['ruleConfig must be an object, got string "x"'],
    },
    {
      name: 'RATE_CHANGE takes one condition',
      type: 'RATE_CHANGE',
      input: { logicalOperator: 'AND', conditions: [leaf()] },
      errors: [
        'RATE_CHANGE takes a single condition { metric, operator, threshold, windowMinutes }; logical operators are for THRESHOLD rules',
      ],
    },
    {
      name: 'RATE_CHANGE window at most 720',
      type: 'RATE_CHANGE',
      input: leaf({ windowMinutes: 721 }),
      errors: ['Invalid windowMinutes 721: must be an integer from 1 to 720'],
    },
  ];
  for (const c of cases) {
    t.same(
      validateRuleConfig(c.type ?? 'THRESHOLD', c.input),
      { ok: false, errors: c.errors },
      c.name,
    );
  }
  t.end();
});

void t.test('no config can exhaust the stack or the tick', (t) => {
  let deep: unknown = leaf();
  for (let i = 0; i < 17; i++) deep = { logicalOperator: 'NOT', conditions: [deep] };
  const result = validateRuleConfig('THRESHOLD', deep);
  t.equal(result.ok, false);
  if (!result.ok) t.match(result.errors[0], /nest deeper than 16 levels$/);

  let ok: unknown = leaf();
  for (let i = 0; i < 16; i++) ok = { logicalOperator: 'NOT', conditions: [ok] };
  t.equal(validateRuleConfig('THRESHOLD', ok).ok, true, '16 levels are fine');

  const wide = { logicalOperator: 'OR', conditions: Array.from({ length: 250 }, () => leaf()) };
  t.same(validateRuleConfig('THRESHOLD', wide), {
    ok: false,
    errors: ['Too many conditions: at most 200'],
  });
  t.end();
});

void t.test('suggestions: edit distance, folding and prefixes', (t) => {
  t.equal(editDistance('kitten', 'sitting'), 3);
  t.equal(editDistance('ab', 'ba'), 1, 'a transposition costs one');
  t.equal(editDistance('abcdef', 'x', 2), 3, 'early exit past the limit');
  t.equal(suggest('errRate', ['errorRate', 'totalErrors']), 'errorRate');
  t.equal(suggest('GREATER', ['GREATER_THAN', 'GREATER_THAN_OR_EQUAL']), 'GREATER_THAN');
  t.equal(suggest('Greater-Than', ['GREATER_THAN']), 'GREATER_THAN');
  t.equal(suggest('latencyP90', ['latencyP50', 'latencyP95']), 'latencyP50');
  t.equal(suggest('zzz', ['errorRate']), null);
  t.equal(suggest('', ['errorRate']), null);
  t.end();
});

void t.test('ruleWarnings: exactly the WARNING cases', (t) => {
  const metrics = fakeMetrics({ keys: ['eventsByType[checkout.paid]'] });
  const threshold = (over: Record<string, unknown>) => {
    const v = validateRuleConfig('THRESHOLD', leaf(over));
    if (!v.ok) throw new Error(v.errors.join());
    return v.config;
  };
  t.same(ruleWarnings('THRESHOLD', threshold({}), metrics), [], 'nothing to say');
  t.same(ruleWarnings('THRESHOLD', threshold({ metric: 'totalEvents', threshold: 2.5 }), metrics), [
    `Metric 'totalEvents' counts events, but threshold 2.5 is not an integer`,
  ]);
  t.same(
    ruleWarnings(
      'THRESHOLD',
      threshold({ metric: 'eventsByType[checkout.paid]', threshold: 0.5 }),
      metrics,
    ),
    [`Metric 'eventsByType[checkout.paid]' counts events, but threshold 0.5 is not an integer`],
  );
  t.same(
    ruleWarnings('THRESHOLD', threshold({ metric: 'avgLatency', threshold: 2.5 }), metrics),
    [],
  );
  t.same(ruleWarnings('THRESHOLD', threshold({ threshold: 150 }), metrics), [
    `Metric 'errorRate' is a percentage from 0 to 100, but threshold 150 is outside that range`,
  ]);
  t.same(ruleWarnings('THRESHOLD', threshold({ threshold: -1 }), metrics).length, 1);
  t.same(ruleWarnings('THRESHOLD', threshold({ threshold: 100 }), metrics), []);
  t.same(
    ruleWarnings('THRESHOLD', threshold({ metric: 'eventsByType[checkout.faild]' }), metrics),
    [
      `No event has used the key 'checkout.faild' of eventsByType since start or the last reset: check the spelling of 'eventsByType[checkout.faild]'`,
    ],
  );
  const rate = validateRuleConfig('RATE_CHANGE', leaf({ threshold: 250 }));
  t.same(
    rate.ok && ruleWarnings('RATE_CHANGE', rate.config, metrics),
    [],
    'a percent change may exceed 100',
  );
  const anomaly = validateRuleConfig('ANOMALY', { metric: 'eventRate', source: 'mobil' });
  t.same(anomaly.ok && ruleWarnings('ANOMALY', anomaly.config, metrics), [
    "No event has used the source 'mobil' since start or the last reset: check its spelling",
  ]);
  t.same(ruleWarnings('PATTERN', {}, metrics), [], 'PATTERN is evaluated: no such warning');
  t.end();
});

void t.test('recommendations', (t) => {
  const config = (input: unknown, type: RuleType = 'THRESHOLD') => {
    const v = validateRuleConfig(type, input);
    if (!v.ok) throw new Error(v.errors.join());
    return v.config;
  };
  t.same(
    recommendations({
      ruleType: 'THRESHOLD',
      config: config(leaf()),
      notificationChannels: ['email'],
    }),
    [],
    'defaults and a channel: nothing to recommend',
  );
  const all = recommendations({
    ruleType: 'THRESHOLD',
    config: config({
      logicalOperator: 'AND',
      conditions: [
        leaf({ operator: 'EQUALS', windowMinutes: 1 }),
        leaf({ metric: 'totalEvents', operator: 'EQUALS' }),
      ],
    }),
    suppressionWindowMinutes: 0,
    notificationChannels: [],
  });
  t.same(all, [
    'Set a suppression window (suppressionWindowMinutes above 0): without one, a condition that stays true alerts on every evaluation, once a second, up to maxAlertsPerHour',
    'Add a notification channel (email, slack or webhook): without one, alerts are only stored and published on /topic/alerts',
    `'errorRate' uses a 1-minute window, which holds only the current, partial minute and restarts every minute: use at least 5 minutes for a steady signal`,
    `EQUALS on 'errorRate' compares a rate or average exactly, which rarely or almost always holds: use a GREATER_THAN or LESS_THAN operator`,
  ]);
  t.match(
    recommendations({
      ruleType: 'RATE_CHANGE',
      config: config(leaf({ operator: 'NOT_EQUALS' }), 'RATE_CHANGE'),
      notificationChannels: null,
    }),
    [/notification channel/, /NOT_EQUALS on 'errorRate' compares a percent change/],
  );
  t.match(
    recommendations({
      ruleType: 'THRESHOLD',
      config: config({ logicalOperator: 'OR', conditions: [leaf()] }),
      notificationChannels: ['slack'],
    }),
    [/OR with a single condition/],
  );
  t.same(recommendations({ ruleType: 'ANOMALY', config: {}, notificationChannels: ['slack'] }), []);
  t.end();
});

void t.test('lifecycle keys: pendingSeconds, keepFiringSeconds, recoveryThreshold', (t) => {
  const ok = (type: RuleType, input: unknown): unknown => {
    const v = validateRuleConfig(type, input);
    return v.ok ? v.config : v.errors;
  };
  const errors = (type: RuleType, input: unknown): readonly string[] => {
    const v = validateRuleConfig(type, input);
    return v.ok ? [] : v.errors;
  };
  t.same(
    ok('THRESHOLD', {
      ...leaf({ threshold: 0.05, recoveryThreshold: 0.03 }),
      pendingSeconds: 60,
      keepFiringSeconds: 0,
    }),
    {
      metric: 'errorRate',
      operator: 'GREATER_THAN',
      threshold: 0.05,
      windowMinutes: 5,
      recoveryThreshold: 0.03,
      pendingSeconds: 60,
      keepFiringSeconds: 0,
    },
    'kept as given on a leaf at the top',
  );
  t.same(
    ok('THRESHOLD', {
      logicalOperator: 'OR',
      pendingSeconds: 30,
      conditions: [leaf({ operator: 'LESS_THAN', threshold: 1, recoveryThreshold: 2 })],
    }),
    {
      logicalOperator: 'OR',
      conditions: [
        {
          metric: 'errorRate',
          operator: 'LESS_THAN',
          threshold: 1,
          windowMinutes: 5,
          recoveryThreshold: 2,
        },
      ],
      pendingSeconds: 30,
    },
    'on a node at the top; a recovery threshold on any leaf',
  );
  t.same(ok('RATE_CHANGE', { ...leaf({ recoveryThreshold: 1 }), keepFiringSeconds: 5 }), {
    metric: 'errorRate',
    operator: 'GREATER_THAN',
    threshold: 5,
    windowMinutes: 5,
    recoveryThreshold: 1,
    keepFiringSeconds: 5,
  });
  t.same(errors('THRESHOLD', { ...leaf(), pendingSecond: 5 }), [
    "Unknown property 'pendingSecond'. Did you mean 'pendingSeconds'?",
  ]);
  t.same(errors('THRESHOLD', leaf({ recoveryTreshold: 1 })), [
    "Unknown property 'recoveryTreshold'. Did you mean 'recoveryThreshold'?",
  ]);
  t.same(
    errors('THRESHOLD', { logicalOperator: 'AND', conditions: [leaf({ keepFiringSeconds: 5 })] }),
    [
      'conditions[0]: keepFiringSeconds applies to the whole rule: set it on the top level of ruleConfig',
    ],
  );
  t.same(errors('THRESHOLD', { ...leaf(), pendingSeconds: -1, keepFiringSeconds: 1.5 }), [
    'Invalid pendingSeconds -1: must be an integer from 0 to 86400',
    'Invalid keepFiringSeconds 1.5: must be an integer from 0 to 86400',
  ]);
  t.same(errors('THRESHOLD', leaf({ threshold: 0.05, recoveryThreshold: 0.07 })), [
    'recoveryThreshold 0.07 is on the wrong side of threshold 0.05: with GREATER_THAN the rule fires above the threshold and resolves once the value is back past recoveryThreshold, so recoveryThreshold must be at most the threshold',
  ]);
  t.same(errors('THRESHOLD', leaf({ operator: 'LESS_THAN', recoveryThreshold: 4 })), [
    'recoveryThreshold 4 is on the wrong side of threshold 5: with LESS_THAN the rule fires below the threshold and resolves once the value is back past recoveryThreshold, so recoveryThreshold must be at least the threshold',
  ]);
  t.same(errors('THRESHOLD', leaf({ operator: 'EQUALS', recoveryThreshold: 4 })), [
    'recoveryThreshold needs an ordering operator (GREATER_THAN, GREATER_THAN_OR_EQUAL, LESS_THAN, LESS_THAN_OR_EQUAL), not EQUALS',
  ]);
  t.same(errors('THRESHOLD', leaf({ recoveryThreshold: '1' })), [
    'Invalid recoveryThreshold "1": expected a finite number',
  ]);
  t.end();
});
