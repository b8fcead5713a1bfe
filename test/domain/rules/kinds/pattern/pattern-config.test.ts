// PATTERN ruleConfig: every key validated with messages that say why (did-you-mean), the
// normalised form, and the DRL generated and parsed back (golden text and random round trips).
import t from 'tap';
import fc from 'fast-check';
import { compileDrl, generateDrl } from '../../../../../src/domain/rules/drl.ts';
import { parseDrl } from '../../../../../src/domain/rules/drl-parser.ts';
import { conditionText } from '../../../../../src/domain/rules/condition-text.ts';
import { validateRuleConfig } from '../../../../../src/domain/rules/rule-config-validation.ts';
import type { RuleConfig } from '../../../../../src/domain/rules/rule-types.ts';
import { LOGIN_CONFIG } from './fixtures.ts';

const LOGIN = LOGIN_CONFIG;

const errorsOf = (config: unknown): readonly string[] => {
  const v = validateRuleConfig('PATTERN', config);
  return v.ok ? [] : v.errors;
};
const valid = (config: unknown): RuleConfig => {
  const v = validateRuleConfig('PATTERN', config);
  if (!v.ok) throw new Error(v.errors.join('; '));
  return v.config;
};

t.test('the login example normalises with its defaults', async (t) => {
  t.same(valid(LOGIN), {
    partitionBy: 'userId',
    withinMinutes: 5,
    steps: [
      {
        eventType: 'login',
        where: [{ field: 'metadata.success', operator: 'EQUALS', value: false }],
        times: { min: 3 },
        contiguity: 'relaxed',
      },
      {
        eventType: 'login',
        where: [{ field: 'metadata.success', operator: 'EQUALS', value: true }],
        times: { min: 1 },
        contiguity: 'relaxed',
      },
    ],
    maxPartitions: 100_000,
  });
  t.equal(
    conditionText('PATTERN', valid(LOGIN)),
    'by userId within 5 min: login[metadata.success == false] x3 -> login[metadata.success == true]',
  );
});

t.test('every key is checked, with did-you-mean', async (t) => {
  const cases: [string, unknown, string[]][] = [
    ['not an object', 3, ['ruleConfig must be an object, got number 3']],
    [
      'nothing',
      {},
      [
        'partitionBy is required: the event field whose value keeps sequences apart, one of userId, sessionId, source, tags.<key>',
        'withinMinutes is required: the longest time, in minutes, from the first event of a sequence to its last (at most 1440)',
        'steps is required: 1 to 8 steps, each { eventType, where, times, contiguity }',
      ],
    ],
    [
      'misspelt key',
      { ...LOGIN, withinMinute: 5 },
      ["Unknown property 'withinMinute'. Did you mean 'withinMinutes'?"],
    ],
    [
      'partitionBy',
      { ...LOGIN, partitionBy: 'userid' },
      ['Invalid partitionBy "userid". Did you mean \'userId\'?'],
    ],
    [
      'partitionBy tag',
      { ...LOGIN, partitionBy: 'tags.' },
      ['Invalid partitionBy "tags.": must be one of userId, sessionId, source, tags.<key>'],
    ],
    [
      'window too long',
      { ...LOGIN, withinMinutes: 1441 },
      ['Invalid withinMinutes 1441: must be a number of minutes from 1/60 (one second) to 1440'],
    ],
    [
      'too many steps',
      { ...LOGIN, steps: Array(9).fill({ eventType: 'a' }) },
      ['Invalid steps (9 steps): must be an array of 1 to 8 steps'],
    ],
    [
      'times too large',
      { ...LOGIN, steps: [{ eventType: 'a', times: { min: 1001 } }] },
      ['steps[0].times: Invalid min 1001: must be an integer from 1 to 1000'],
    ],
    [
      'contiguity',
      { ...LOGIN, steps: [{ eventType: 'a', contiguity: 'strcit' }] },
      ['steps[0]: Invalid contiguity "strcit". Did you mean \'strict\'?'],
    ],
    [
      'step key',
      { ...LOGIN, steps: [{ eventTyp: 'a' }] },
      [
        "steps[0]: Unknown property 'eventTyp'. Did you mean 'eventType'?",
        'steps[0]: eventType is required: the type of event this step matches',
      ],
    ],
    [
      'field',
      {
        ...LOGIN,
        steps: [{ eventType: 'a', where: [{ field: 'sourc', operator: 'EQUALS', value: 'x' }] }],
      },
      ["steps[0].where[0]: Unknown field 'sourc'. Did you mean 'source'?"],
    ],
    [
      'metadata field',
      {
        ...LOGIN,
        steps: [{ eventType: 'a', where: [{ field: 'metadata', operator: 'EQUALS', value: 1 }] }],
      },
      ["steps[0].where[0]: Invalid field 'metadata': write metadata.<key>, e.g. metadata.region"],
    ],
    [
      'operator',
      {
        ...LOGIN,
        steps: [{ eventType: 'a', where: [{ field: 'source', operator: '>=', value: 1 }] }],
      },
      ["steps[0].where[0]: Invalid operator '>='. Did you mean 'GREATER_THAN_OR_EQUAL'?"],
    ],
    [
      'ordering on a string',
      {
        ...LOGIN,
        steps: [
          { eventType: 'a', where: [{ field: 'metadata.n', operator: 'LESS_THAN', value: 'x' }] },
        ],
      },
      ['steps[0].where[0]: LESS_THAN compares numbers: value must be a number, got "x"'],
    ],
    [
      'severity',
      {
        ...LOGIN,
        steps: [
          { eventType: 'a', where: [{ field: 'severity', operator: 'EQUALS', value: 'EROR' }] },
        ],
      },
      ['steps[0].where[0]: Invalid severity "EROR". Did you mean \'ERROR\'?'],
    ],
    [
      'absent without window',
      { ...LOGIN, absent: { eventType: 'b' } },
      [
        'absent: withinMinutes is required: the longest time, in minutes, from the first event of a sequence to its last (at most 1440)',
      ],
    ],
    [
      'maxPartitions',
      { ...LOGIN, maxPartitions: 0 },
      ['Invalid maxPartitions 0: must be an integer from 1 to 1000000'],
    ],
    [
      'pendingSeconds',
      { ...LOGIN, pendingSeconds: 10 },
      [
        'pendingSeconds does not apply to PATTERN rules: a completed sequence is an event, not a condition that holds for a while; use steps[].times to ask for repeats',
      ],
    ],
  ];
  for (const [name, config, expected] of cases) t.same(errorsOf(config), expected, name);
});

t.test('DRL: golden text, and the config survives the round trip', async (t) => {
  const config = valid({
    ...LOGIN,
    absent: { eventType: 'logout', withinMinutes: 2 },
    keepFiringSeconds: 60,
  });
  const rule = {
    id: 7,
    name: 'Brute force',
    ruleType: 'PATTERN' as const,
    severity: 'HIGH' as const,
    priority: 0,
    config,
  };
  const drl = generateDrl(rule);
  t.match(
    drl,
    /\/\/ by userId within 5 min: login\[metadata\.success == false\] x3 -> login\[metadata\.success == true\], then no logout within 2 min\n/,
  );
  t.match(drl, /eval\( \$m\.pattern\("\{\\"partitionBy\\":\\"userId\\",/);
  const back = parseDrl(drl);
  t.ok(back.ok);
  if (back.ok) t.same(back.rule.pattern, config);
  t.ok(compileDrl(rule).ok);
  const tampered = drl.replace('\\"withinMinutes\\":5', '\\"withinMinutes\\":6');
  const parsed = parseDrl(tampered);
  t.ok(
    parsed.ok && JSON.stringify(parsed.rule.pattern) !== JSON.stringify(config),
    'a change shows',
  );
  t.same(parseDrl(drl.replace('\\"withinMinutes\\":5', '\\"withinMinutes\\":5000')), {
    ok: false,
    error:
      'line 15: invalid pattern: Invalid withinMinutes 5000: must be a number of minutes from 1/60 (one second) to 1440',
  });
});

t.test('random valid configs survive the DRL round trip', async (t) => {
  const condition = fc
    .record({
      field: fc.constantFrom('source', 'severity', 'tags.region', 'metadata.a.b', 'userId'),
      operator: fc.constantFrom('EQUALS', 'NOT_EQUALS'),
      value: fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null)),
    })
    .filter((c) => c.field !== 'severity');
  const step = fc.record({
    eventType: fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== ''),
    where: fc.array(condition, { maxLength: 3 }),
    times: fc.integer({ min: 1, max: 1000 }).map((min) => ({ min })),
    contiguity: fc.constantFrom('relaxed', 'strict'),
  });
  fc.assert(
    fc.property(
      fc.array(step, { minLength: 1, maxLength: 8 }),
      fc.integer({ min: 1, max: 1440 }),
      fc.constantFrom('userId', 'sessionId', 'source', 'tags.tenant'),
      (steps, withinMinutes, partitionBy) => {
        const config = valid({ partitionBy, withinMinutes, steps });
        const rule = {
          id: null,
          name: 'r',
          ruleType: 'PATTERN' as const,
          severity: 'LOW' as const,
          priority: 1,
          config,
        };
        const compiled = compileDrl(rule);
        if (!compiled.ok) throw new Error(compiled.error);
      },
    ),
    { numRuns: 300 },
  );
  t.pass('300 configs');
});

t.test('a PATTERN config stored before the type was defined keeps the stub DRL', async (t) => {
  const rule = {
    id: 3,
    name: 'old',
    ruleType: 'PATTERN' as const,
    severity: 'LOW' as const,
    priority: 0,
    config: { sequence: ['a', 'b'] },
  };
  t.match(generateDrl(rule), /eval\( false \)/);
  t.ok(compileDrl(rule).ok);
  t.equal(conditionText('PATTERN', { sequence: ['a'] }), 'PATTERN (not evaluated)');
});
