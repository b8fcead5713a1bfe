/**
 * @module THRESHOLD: a condition tree over the live metrics (a leaf, or AND / OR / NOT of
 * conditions), each leaf its metric over its window compared with a threshold.
 */
import { thresholdDef, type SeriesDef } from '../../backtest/series-defs.ts';
import { evaluateKind, prepareConditionTree } from '../../evaluator.ts';
import { conditionTree, leaves, type Condition } from '../../rule-types.ts';
import { conditionRecommendations, conditionWarnings } from '../condition/condition-advice.ts';
import {
  conditionAttributes,
  conditionLines,
  conditionSurvived,
} from '../condition/condition-drl.ts';
import {
  conditionCountsEvents,
  conditionKeys,
  conditionReadsClock,
  conditionSpanMs,
} from '../condition/condition-reads.ts';
import { ConditionSchema } from '../condition/condition-schema.ts';
import { conditionText } from '../condition/condition-text.ts';
import { validateConditionTree } from '../condition/condition-validation.ts';
import type { RuleKind } from '../rule-kind.ts';

/** Each metric with its threshold; a second window of the same metric is its own series. */
function chartSeries(config: Condition): SeriesDef[] {
  const defs: SeriesDef[] = [];
  const windowOf = new Map<string, number>();
  for (const leaf of leaves(config)) {
    const first = windowOf.get(leaf.metric);
    const label = `${leaf.metric} over ${leaf.windowMinutes} min`;
    if (first === undefined) {
      windowOf.set(leaf.metric, leaf.windowMinutes);
      defs.push(thresholdDef(leaf, leaf.metric, label));
    } else if (first !== leaf.windowMinutes) {
      defs.push(thresholdDef(leaf, `${leaf.metric} (last ${leaf.windowMinutes} min)`, label));
    } else {
      defs.push(thresholdDef(leaf, leaf.metric, label)); // same value, its own threshold
    }
  }
  return defs;
}

export const THRESHOLD_KIND: RuleKind<Condition> = {
  type: 'THRESHOLD',
  configSchema: ConditionSchema,
  validate: (config) => validateConditionTree(config),
  drl: {
    attributes: (config) => conditionAttributes(config),
    when: (config, pad) => conditionLines(conditionTree(config), pad),
    parseWhen: (reader) => ({ condition: reader.conditionTree() }),
    survived: (config, parsed) => conditionSurvived(config, parsed),
  },
  text: (config) => conditionText(config),
  evaluation: {
    prepare: (config, set, activeSince) => prepareConditionTree(config, set, activeSince),
    readSpanMs: (config) => conditionSpanMs(config),
    countsEvents: (config) => conditionCountsEvents(config),
    watchKeys: (config, keys) => conditionKeys(config, keys),
    bandSeries: false,
  },
  advice: {
    warnings: (config, metrics) => conditionWarnings(config, metrics, true),
    recommendations: (config) => conditionRecommendations(config, false),
  },
  ruleTest: {
    simulate: (config, { metrics, activeSince }) => ({
      evaluation: evaluateKind(THRESHOLD_KIND, config, metrics, activeSince),
      recommendations: [],
    }),
    replaysEvents: false,
  },
  backtest: {
    readsEvents: false,
    readsClock: (config) => conditionReadsClock(config),
    chartSeries,
  },
};
