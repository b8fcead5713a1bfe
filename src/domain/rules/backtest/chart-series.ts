/**
 * @module The chart of a backtest: each metric the condition compares (its value as the alert's
 * `currentValues` names it) with its threshold, sampled at a step of whole minutes that keeps the
 * points under MAX_CHART_POINTS. The transitions themselves are exact; the chart is for the eye.
 */
import { MINUTE_MS } from '../../metrics/time.ts';
import {
  leaves,
  type Condition,
  type ConditionLeaf,
  type OperatorName,
  type RuleConfig,
  type RuleType,
} from '../rule-types.ts';
import { MAX_CHART_POINTS, type BacktestChart } from './backtest-result.ts';

interface SeriesDef {
  /** Its key in currentValues. */
  readonly key: string;
  readonly label: string;
  readonly operator: OperatorName;
  readonly threshold: number;
  readonly recoveryThreshold: number | null;
}

const defOf = (leaf: ConditionLeaf, key: string, label: string): SeriesDef => ({
  key,
  label,
  operator: leaf.operator,
  threshold: leaf.threshold,
  recoveryThreshold: leaf.recoveryThreshold ?? null,
});

/** The series of a rule, keyed as evaluator.ts names its values (valuesRecord, rate change). */
function seriesOf(ruleType: RuleType, config: RuleConfig): SeriesDef[] {
  if (ruleType === 'RATE_CHANGE') {
    const leaf = config as ConditionLeaf;
    const key = `percentChange(${leaf.metric})`;
    return [defOf(leaf, key, `${key} over ${leaf.windowMinutes} min`)];
  }
  if (ruleType !== 'THRESHOLD') return [];
  const defs: SeriesDef[] = [];
  const windowOf = new Map<string, number>();
  for (const leaf of leaves(config as Condition)) {
    const first = windowOf.get(leaf.metric);
    const label = `${leaf.metric} over ${leaf.windowMinutes} min`;
    if (first === undefined) {
      windowOf.set(leaf.metric, leaf.windowMinutes);
      defs.push(defOf(leaf, leaf.metric, label));
    } else if (first !== leaf.windowMinutes) {
      defs.push(defOf(leaf, `${leaf.metric} (last ${leaf.windowMinutes} min)`, label));
    } else {
      defs.push(defOf(leaf, leaf.metric, label)); // same value, its own threshold
    }
  }
  return defs;
}

/** Whole minutes, enough that a range gives at most MAX_CHART_POINTS points. */
export const chartStepMs = (rangeMs: number): number =>
  Math.max(1, Math.ceil(rangeMs / MAX_CHART_POINTS / MINUTE_MS)) * MINUTE_MS;

export class ChartRecorder {
  private readonly defs: SeriesDef[];
  private readonly times: number[] = [];
  private readonly columns: (number | null)[][];
  private next: number;

  constructor(
    ruleType: RuleType,
    config: RuleConfig,
    from: number,
    readonly stepMs: number,
  ) {
    this.defs = seriesOf(ruleType, config);
    this.columns = this.defs.map(() => []);
    this.next = from;
  }

  /** Is a point due at this tick? */
  due(at: number): boolean {
    return at >= this.next && this.times.length < MAX_CHART_POINTS;
  }

  add(at: number, values: Readonly<Record<string, number>>): void {
    this.times.push(at);
    this.defs.forEach((def, i) => {
      const value = values[def.key];
      (this.columns[i] as (number | null)[]).push(
        value === undefined || !Number.isFinite(value) ? null : value,
      );
    });
    while (this.next <= at) this.next += this.stepMs;
  }

  chart(): BacktestChart {
    return {
      stepMs: this.stepMs,
      times: this.times,
      series: this.defs.map((def, i) => ({
        label: def.label,
        operator: def.operator,
        threshold: def.threshold,
        recoveryThreshold: def.recoveryThreshold,
        values: this.columns[i] as (number | null)[],
      })),
    };
  }
}
