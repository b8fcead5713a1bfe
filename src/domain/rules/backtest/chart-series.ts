/**
 * @module The chart of a backtest: each metric the condition compares (its value as the alert's
 * `currentValues` names it) with its threshold, or for an ANOMALY rule its observed value with the
 * band (expected, lower, upper), sampled at a step of whole minutes that keeps the points under
 * MAX_CHART_POINTS. PATTERN rules have no series. The transitions are exact; the chart is for the eye.
 */
import { MINUTE_MS } from '../../metrics/time.ts';
import type { RuleConfig } from '../rule-types.ts';
import { kindOf } from '../kinds/registry.ts';
import type { SeriesDef } from './series-defs.ts';
import { MAX_CHART_POINTS, type BacktestChart, type ChartSeries } from './backtest-result.ts';

type Column = (number | null)[];

/** The band's keys in currentValues, in the order BandChartSeries holds them. */
const BAND_PARTS = ['expected', 'lower', 'upper'] as const;

/** The series of a rule, keyed as evaluator.ts names its values: its kind's (kinds/registry.ts). */
const seriesOf = (ruleType: string, config: RuleConfig): SeriesDef[] =>
  kindOf(ruleType).backtest.chartSeries(config);

/** Whole minutes, enough that a range gives at most MAX_CHART_POINTS points. */
export const chartStepMs = (rangeMs: number): number =>
  Math.max(1, Math.ceil(rangeMs / MAX_CHART_POINTS / MINUTE_MS)) * MINUTE_MS;

const finite = (value: number | undefined): number | null =>
  value === undefined || !Number.isFinite(value) ? null : value;

export class ChartRecorder {
  private readonly defs: SeriesDef[];
  private readonly times: number[] = [];
  /** Per series: its values, then for a band its expected, lower and upper. */
  private readonly columns: Column[][];
  private next: number;

  constructor(
    ruleType: string,
    config: RuleConfig,
    from: number,
    readonly stepMs: number,
  ) {
    this.defs = seriesOf(ruleType, config);
    this.columns = this.defs.map((def) => (def.kind === 'band' ? [[], [], [], []] : [[]]));
    this.next = from;
  }

  /** Is a point due at this tick? */
  due(at: number): boolean {
    return at >= this.next && this.times.length < MAX_CHART_POINTS;
  }

  /** `learning`: an ANOMALY series that judges nothing yet (its band is drawn as none). */
  add(at: number, values: Readonly<Record<string, number>>, learning = false): void {
    this.times.push(at);
    this.defs.forEach((def, i) => {
      const [observed, ...band] = this.columns[i] as Column[];
      (observed as Column).push(finite(values[def.key]));
      if (def.kind !== 'band') return;
      BAND_PARTS.forEach((part, j) =>
        (band[j] as Column).push(learning ? null : finite(values[`${part}(${def.key})`])),
      );
    });
    while (this.next <= at) this.next += this.stepMs;
  }

  chart(): BacktestChart {
    return {
      stepMs: this.stepMs,
      times: this.times,
      series: this.defs.map((def, i): ChartSeries => {
        const [values, expected, lower, upper] = this.columns[i] as Column[];
        if (def.kind === 'threshold') {
          const { kind, label, operator, threshold, recoveryThreshold } = def;
          return { kind, label, operator, threshold, recoveryThreshold, values: values as Column };
        }
        return {
          kind: 'band',
          label: def.label,
          direction: def.direction,
          values: values as Column,
          expected: expected as Column,
          lower: lower as Column,
          upper: upper as Column,
        };
      }),
    };
  }
}
