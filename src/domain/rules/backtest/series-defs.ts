/**
 * @module What a backtest chart draws for a rule, as each kind declares it (kinds/*: the kind's
 * `backtest.chartSeries`): a metric with its threshold, or an ANOMALY band. Apart from
 * chart-series.ts, which asks the registry, so that the kinds can name these without a cycle.
 */
import type { ConditionLeaf, OperatorName } from '../rule-types.ts';
import type { AnomalyDirection } from '../kinds/anomaly/anomaly-config.ts';

export interface ThresholdDef {
  readonly kind: 'threshold';
  /** Its key in currentValues. */
  readonly key: string;
  readonly label: string;
  readonly operator: OperatorName;
  readonly threshold: number;
  readonly recoveryThreshold: number | null;
}

/** The keys are bandValues' (anomaly-explanation.ts): `name`, `expected(name)`, … */
export interface BandDef {
  readonly kind: 'band';
  readonly key: string;
  readonly label: string;
  readonly direction: AnomalyDirection;
}

export type SeriesDef = ThresholdDef | BandDef;

export const thresholdDef = (leaf: ConditionLeaf, key: string, label: string): ThresholdDef => ({
  kind: 'threshold',
  key,
  label,
  operator: leaf.operator,
  threshold: leaf.threshold,
  recoveryThreshold: leaf.recoveryThreshold ?? null,
});
