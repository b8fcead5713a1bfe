/**
 * @module ANOMALY: a per-bucket series (a rate, a ratio, a latency) judged against a band learnt
 * from its own history. Its code is the rest of this
 * folder; this object is what the generic code reaches.
 */
import { anomalyConditionText, anomalyRecommendations, anomalyWarnings } from './anomaly-advice.ts';
import { COUNT_METRICS, type AnomalyConfig } from './anomaly-config.ts';
import {
  anomalyWhenLines,
  isAnomalyConfig,
  parseAnomalyWhen,
  sameAnomalyWhen,
} from './anomaly-drl.ts';
import { seriesName } from './anomaly-explanation.ts';
import { anomalyConfigOf, anomalyRestoreMs } from './anomaly-rules.ts';
import { simulateAnomaly } from './anomaly-simulation.ts';
import { validateAnomalyConfig } from './anomaly-validation.ts';
import { neverFiresLines, readNeverFires } from '../../drl-syntax.ts';
import { prepareNever } from '../../evaluator.ts';
import type { Condition, RuleConfig } from '../../rule-types.ts';
import { conditionAttributes, lifecycleSurvived } from '../condition/condition-drl.ts';
import type { RuleKind } from '../rule-kind.ts';
import { AnomalyConfigSchema } from './anomaly-schema.ts';

const TYPE = 'ANOMALY';

/**
 * A rule stored before ANOMALY had keys keeps the object it was given (and its DRL stub and hash):
 * it never fires. So the hooks take any stored config, and read it through anomalyConfigOf.
 */
export const ANOMALY_KIND: RuleKind<RuleConfig> = {
  type: TYPE,
  configSchema: AnomalyConfigSchema,
  validate: (config) => validateAnomalyConfig(config),
  drl: {
    attributes: (config) => conditionAttributes(config as Condition),
    when: (config, pad) =>
      isAnomalyConfig(config) ? anomalyWhenLines(config, pad) : neverFiresLines(TYPE, pad),
    parseWhen: (reader) => {
      if (reader.is('ident', 'eval')) {
        readNeverFires(reader);
        return { condition: null };
      }
      return { condition: null, anomaly: parseAnomalyWhen(reader) };
    },
    survived: (config, back) => {
      if (!isAnomalyConfig(config))
        return back.condition === null && back.anomaly === undefined
          ? null
          : 'the stub condition did not survive';
      return (
        lifecycleSurvived(config, back) ??
        (back.anomaly !== undefined && sameAnomalyWhen(back.anomaly, config)
          ? null
          : 'the ANOMALY series and band did not survive')
      );
    },
  },
  text: (config) => anomalyConditionText(config as AnomalyConfig),
  evaluation: {
    prepare: (_config, set) => prepareNever(TYPE, set),
    readSpanMs: (config) => {
      const anomaly = anomalyConfigOf(config);
      return anomaly === null ? 0 : anomalyRestoreMs(anomaly);
    },
    countsEvents: (config) => {
      const anomaly = anomalyConfigOf(config);
      return anomaly !== null && COUNT_METRICS.includes(anomaly.metric);
    },
    watchKeys: (config, keys) => {
      const anomaly = anomalyConfigOf(config);
      if (anomaly?.eventType !== undefined) keys.types.add(anomaly.eventType);
      if (anomaly?.source !== undefined) keys.sources.add(anomaly.source);
    },
    bandSeries: true,
  },
  advice: {
    warnings: (config, metrics) => anomalyWarnings(config as AnomalyConfig, metrics),
    recommendations: () => [],
  },
  ruleTest: {
    simulate: (config, { metrics, now, live }) => {
      if (now === undefined) return null;
      const anomaly = config as AnomalyConfig;
      const simulation = simulateAnomaly(anomaly, metrics, now, live);
      return {
        evaluation: simulation.result,
        recommendations: anomalyRecommendations(anomaly, simulation.status, simulation.live),
      };
    },
    replaysEvents: false,
  },
  backtest: {
    readsEvents: false,
    readsClock: () => false,
    chartSeries: (config) => {
      const anomaly = anomalyConfigOf(config);
      if (anomaly === null) return [];
      const key = seriesName(anomaly);
      const label = `${key} per ${anomaly.bucketMinutes} min`;
      return [{ kind: 'band', key, label, direction: anomaly.direction }];
    },
  },
};
