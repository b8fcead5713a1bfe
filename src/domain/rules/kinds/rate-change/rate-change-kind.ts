/**
 * @module RATE_CHANGE: one leaf whose threshold is compared with the percent change of its metric
 * between its window and the window before (both must fit the 24 h retention).
 */
import { thresholdDef } from '../../backtest/series-defs.ts';
import { PERCENT_CHANGE_FUNCTION } from '../../drl-syntax.ts';
import { evaluateKind, prepareRateChange } from '../../evaluator.ts';
import { OPERATORS, isConditionNode, type ConditionLeaf } from '../../rule-types.ts';
import { conditionRecommendations, conditionWarnings } from '../condition/condition-advice.ts';
import { conditionAttributes, conditionSurvived, leafLine } from '../condition/condition-drl.ts';
import {
  conditionCountsEvents,
  conditionKeys,
  conditionReadsClock,
  conditionSpanMs,
} from '../condition/condition-reads.ts';
import { ConditionLeafSchema } from '../condition/condition-schema.ts';
import { conditionText } from '../condition/condition-text.ts';
import { validateRateLeaf } from '../condition/condition-validation.ts';
import type { RuleKind } from '../rule-kind.ts';

function text(leaf: ConditionLeaf): string {
  if (isConditionNode(leaf)) return conditionText(leaf);
  const w = leaf.windowMinutes;
  return `percentChange(${leaf.metric}) ${OPERATORS[leaf.operator]} ${leaf.threshold} [last ${w} min vs the ${w} before]`;
}

export const RATE_CHANGE_KIND: RuleKind<ConditionLeaf> = {
  type: 'RATE_CHANGE',
  configSchema: ConditionLeafSchema,
  validate: (config) => validateRateLeaf(config),
  drl: {
    attributes: (config) => conditionAttributes(config),
    when: (config, pad) => [pad + leafLine(config, PERCENT_CHANGE_FUNCTION)],
    parseWhen: (reader) => ({ condition: reader.evalLeaf(PERCENT_CHANGE_FUNCTION) }),
    survived: (config, parsed) => conditionSurvived(config, parsed),
  },
  text,
  evaluation: {
    prepare: (config, set, activeSince) => prepareRateChange(config, set, activeSince),
    // It reads two windows: its own and the one before.
    readSpanMs: (config) => 2 * conditionSpanMs(config),
    countsEvents: (config) => conditionCountsEvents(config),
    watchKeys: (config, keys) => conditionKeys(config, keys),
    bandSeries: false,
  },
  advice: {
    warnings: (config, metrics) => conditionWarnings(config, metrics, false),
    recommendations: (config) => conditionRecommendations(config, true),
  },
  ruleTest: {
    simulate: (config, { metrics, activeSince }) => ({
      evaluation: evaluateKind(RATE_CHANGE_KIND, config, metrics, activeSince),
      recommendations: [],
    }),
    replaysEvents: false,
  },
  backtest: {
    readsEvents: false,
    readsClock: (config) => conditionReadsClock(config),
    chartSeries: (leaf) => {
      const key = `percentChange(${leaf.metric})`;
      return [thresholdDef(leaf, key, `${key} over ${leaf.windowMinutes} min`)];
    },
  },
};
