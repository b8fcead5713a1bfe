/**
 * @module Response schema of the backtest: documents its answer in OpenAPI, tied at compile time to
 * its one declaration in src/domain/rules/backtest/backtest-result.ts.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type {
  BacktestCounts,
  BacktestNotification,
  BacktestResult,
  BacktestTransition,
  BandChartSeries,
  ThresholdChartSeries,
} from '../domain/rules/backtest/backtest-result.ts';
import { DIRECTIONS } from '../domain/rules/kinds/anomaly/anomaly-config.ts';
import { OPERATOR_NAMES } from '../domain/rules/rule-types.ts';
import { ExplanationSchema, literals } from './alert-responses.ts';
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

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Instant = Type.String({ format: 'date-time' });
const Count = Type.Integer({ minimum: 0 });

const TransitionSchema = describes<BacktestTransition>()(
  Type.Object({
    transition: literals(['FIRING', 'RESOLVED'] as const),
    at: Instant,
    values: nullable(Type.Record(Type.String(), Type.Number())),
    matchedConditions: Type.Array(Type.String()),
    explanation: nullable(ExplanationSchema),
    explanationText: nullable(Type.String()),
    heldByBudget: Type.Boolean(),
    silenceId: nullable(Type.Integer()),
  }),
);

const NotificationSchema = describes<BacktestNotification>()(
  Type.Object({
    transition: literals(['FIRING', 'RESOLVED', 'DIGEST'] as const),
    at: Instant,
    sent: Type.Boolean(),
    notSentReason: nullable(literals(['silenced', 'held-by-budget', 'no-channels'] as const)),
    channels: Type.Array(Type.String()),
    silenceId: nullable(Type.Integer()),
    heldBack: Type.Optional(Count),
  }),
);

const CountsSchema = describes<BacktestCounts>()(
  Type.Object({
    events: Count,
    ticks: Count,
    firing: Count,
    resolved: Count,
    notificationsSent: Count,
    silenced: Count,
    heldByBudget: Count,
    digests: Count,
  }),
);

export const BacktestResultSchema = describes<BacktestResult>()(
  Type.Object(
    {
      from: Instant,
      to: Instant,
      evaluatedUntil: nullable(Instant),
      evaluationMs: Type.Integer(),
      truncated: Type.Boolean(),
      truncatedReason: nullable(Type.String()),
      firingAtEnd: Type.Boolean(),
      transitions: Type.Array(TransitionSchema, {
        description:
          'FIRING / RESOLVED as the evaluator would have decided them, with their values',
      }),
      notifications: Type.Array(NotificationSchema, {
        description: 'FIRING / RESOLVED / DIGEST notifications, sent or why not',
      }),
      counts: CountsSchema,
      chart: BacktestChartSchema,
    },
    { description: 'What the rule would have done over the range (docs/backtest.md)' },
  ),
);
