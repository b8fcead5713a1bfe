// Adding a rule kind touches its own module and the registry only (issue 31): a tiny kind declared
// here, registered into a registry of its own, runs through the generic code unchanged:
// validation, the DRL generated and parsed back, evaluation and its explanation.
import { Type } from '@sinclair/typebox';
import t from 'tap';
import { compileDrl } from '../../../src/domain/rules/drl.ts';
import { prepareConditionTree } from '../../../src/domain/rules/evaluator.ts';
import { evaluateRule } from '../../../src/domain/rules/rule-evaluation.ts';
import { explanationText } from '../../../src/domain/rules/explanation.ts';
import { conditionLines } from '../../../src/domain/rules/kinds/condition/condition-drl.ts';
import { RuleKindRegistry, ruleKinds } from '../../../src/domain/rules/kinds/registry.ts';
import type { RuleKind } from '../../../src/domain/rules/kinds/rule-kind.ts';
import { validateRuleConfig } from '../../../src/domain/rules/rule-config-validation.ts';
import type { ConditionLeaf } from '../../../src/domain/rules/rule-types.ts';
import { testRule } from '../../../src/domain/rules/rule-test.ts';
import { fakeMetrics } from './fake-metrics.ts';

/** ERRORS_ABOVE: `{ above: n }` fires when errorRate over 5 min exceeds n. */
const leafOf = (config: { above: number }): ConditionLeaf => ({
  metric: 'errorRate',
  operator: 'GREATER_THAN',
  threshold: config.above,
  windowMinutes: 5,
});
const errorsAbove: RuleKind<{ above: number } & ConditionLeaf> = {
  type: 'ERRORS_ABOVE',
  configSchema: Type.Object({ above: Type.Number() }, { additionalProperties: false }),
  validate: (config) =>
    typeof config['above'] === 'number' && config['above'] >= 0
      ? { ok: true, config: { above: config['above'] } as never }
      : { ok: false, errors: ['above must be a number of at least 0'] },
  drl: {
    attributes: () => [],
    when: (config, pad) => conditionLines(leafOf(config), pad),
    parseWhen: (reader) => ({ condition: reader.conditionTree() }),
    survived: (config, parsed) =>
      parsed.condition !== null &&
      'threshold' in parsed.condition &&
      parsed.condition.threshold === config.above
        ? null
        : 'the threshold did not survive',
  },
  text: (config) => `errorRate > ${config.above}`,
  evaluation: {
    prepare: (config, set, activeSince) => prepareConditionTree(leafOf(config), set, activeSince),
    readSpanMs: () => 5 * 60_000,
    countsEvents: () => false,
    watchKeys: () => {},
    bandSeries: false,
  },
  advice: { warnings: () => [], recommendations: () => [] },
  ruleTest: { simulate: () => null, replaysEvents: false },
  backtest: { readsEvents: false, readsClock: () => false, chartSeries: () => [] },
};

const kinds = new RuleKindRegistry(ruleKinds().all).register(errorsAbove);

void t.test('validation goes through the kind: its schema, then its own checks', async (t) => {
  t.same(validateRuleConfig('ERRORS_ABOVE', { above: 5 }, kinds), {
    ok: true,
    config: { above: 5 },
  });
  t.same(validateRuleConfig('ERRORS_ABOVE', { above: -1 }, kinds), {
    ok: false,
    errors: ['above must be a number of at least 0'],
  });
  const extra = validateRuleConfig('ERRORS_ABOVE', { above: 5, below: 1 }, kinds);
  t.equal(extra.ok, false, 'the schema refuses what the kind let through');
  t.equal(
    validateRuleConfig('ERRORS_ABOVE', { above: 5 }).ok,
    false,
    'unknown to the default registry',
  );
});

void t.test('its DRL is generated and parsed back', async (t) => {
  const compiled = compileDrl(
    {
      id: 7,
      name: 'errors',
      ruleType: 'ERRORS_ABOVE',
      severity: 'HIGH',
      priority: 0,
      config: { above: 5 },
    },
    kinds,
  );
  t.equal(compiled.ok, true, compiled.ok ? 'compiled' : compiled.error);
  if (compiled.ok) t.match(compiled.drl, /@ruleType\("ERRORS_ABOVE"\)/);
});

void t.test('it is evaluated and explained by the generic evaluator', async (t) => {
  const metrics = fakeMetrics({ values: { errorRate: 12 } });
  const result = evaluateRule('ERRORS_ABOVE', { above: 5 }, metrics, undefined, kinds);
  t.equal(result.wouldTrigger, true);
  t.match(explanationText(result.explanation), /errorRate.*12.*> 5/);
  const calm = evaluateRule('ERRORS_ABOVE', { above: 50 }, metrics, undefined, kinds);
  t.equal(calm.wouldTrigger, false);
});

void t.test('the rule test runs it end to end', async (t) => {
  const result = testRule(
    {
      name: 'errors',
      ruleType: 'ERRORS_ABOVE' as never,
      severity: 'HIGH',
      ruleConfig: { above: 5 },
    },
    fakeMetrics({ values: { errorRate: 12 } }),
    undefined,
    undefined,
    {},
    kinds,
  );
  t.equal(result.success, true, result.message);
});
