/**
 * @module Response schema of the backtest's chart: documents its series in OpenAPI, tied at compile
 * time to their one declaration in src/domain/rules/backtest/backtest-result.ts.
 */
import { Type } from '@sinclair/typebox';
import type {
  BandChartSeries,
  ThresholdChartSeries,
} from '../domain/rules/backtest/backtest-result.ts';
import { DIRECTIONS } from '../domain/rules/kinds/anomaly/anomaly-config.ts';
import { OPERATOR_NAMES } from '../domain/rules/rule-types.ts';
import { literals } from './alert-responses.ts';
import { describes } from './describes.ts';

/** By point of `times`; null where there is no value. */
const Column = Type.Array(Type.Union([Type.Number(), Type.Null()]));

const ThresholdSeries = describes<ThresholdChartSeries>()(
  Type.Object(
    {
      kind: Type.Literal('threshold'),
      label: Type.String(),
      operator: literals(OPERATOR_NAMES),
      threshold: Type.Number(),
      recoveryThreshold: Type.Union([Type.Number(), Type.Null()]),
      values: Column,
    },
    { description: 'THRESHOLD, RATE_CHANGE: a compared metric and its fixed threshold' },
  ),
);

const BandSeries = describes<BandChartSeries>()(
  Type.Object(
    {
      kind: Type.Literal('band'),
      label: Type.String(),
      direction: literals(DIRECTIONS),
      values: Column,
      expected: Column,
      lower: Column,
      upper: Column,
    },
    {
      description:
        'ANOMALY: the observed value (last completed bucket) and its band; the band is null while LEARNING or without an estimate',
    },
  ),
);

export const BacktestChartSchema = Type.Object(
  {
    stepMs: Type.Integer(),
    times: Type.Array(Type.Number(), { description: 'Epoch ms of each point' }),
    series: Type.Array(Type.Union([ThresholdSeries, BandSeries])),
  },
  {
    description:
      'Each compared metric per step with its threshold, or an ANOMALY rule with its band; PATTERN: no series',
  },
);
