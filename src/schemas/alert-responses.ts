/**
 * @module Response schema of the alert endpoints: documents the stored alert in OpenAPI, tied at
 * compile time to its one declaration in src/domain/rules/alerts/alert.ts.
 */
import { Type, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';
import {
  ALERT_STATES,
  type AlertRecord,
  type DeliveryResult,
  type ExplainedCondition,
  type ExplainedPattern,
} from '../domain/rules/alerts/alert.ts';
import { LOGICAL_OPERATORS, OPERATOR_NAMES, RULE_SEVERITIES } from '../domain/rules/rule-types.ts';
import { describes } from './describes.ts';
import type { ExplainedBand } from '../domain/rules/kinds/anomaly/anomaly-explanation.ts';
import { ANOMALY_METRICS, DIRECTIONS } from '../domain/rules/kinds/anomaly/anomaly-config.ts';

/** A string that is one of `values` (each a literal, so OpenAPI lists them). */
export const literals = <T extends string>(values: readonly T[]): TUnion<TLiteral<T>[]> =>
  Type.Union(values.map((value) => Type.Literal(value)));

export const DeliveryResultSchema = describes<DeliveryResult>()(
  Type.Object({
    channel: Type.String({
      description: "The rule's notificationChannels entry (`slack`, `slack:oncall`); never a URL",
    }),
    ok: Type.Boolean(),
    attempts: Type.Integer({ minimum: 0 }),
    status: Type.Optional(Type.Integer()),
    error: Type.Optional(Type.String()),
    at: Type.String({ format: 'date-time' }),
  }),
);

export const ExplainedConditionSchema = describes<ExplainedCondition>()(
  Type.Object({
    metric: Type.String(),
    key: Type.Union([Type.String(), Type.Null()]),
    measure: Type.Union([Type.Literal('value'), Type.Literal('percentChange')]),
    windowMinutes: Type.Integer(),
    operator: literals(OPERATOR_NAMES),
    threshold: Type.Number(),
    recoveryThreshold: Type.Union([Type.Number(), Type.Null()]),
    comparedWith: Type.Number(),
    value: Type.Union([Type.Number(), Type.Null()]),
    result: Type.Boolean(),
  }),
);

const PatternEventSchema = Type.Object({
  eventId: Type.String(),
  at: Type.String({ format: 'date-time' }),
});

/** A PATTERN rule's evaluation: the sequences completed (docs/rules.md, PATTERN). */
export const ExplainedPatternSchema = describes<ExplainedPattern>()(
  Type.Object({
    pattern: Type.Literal('PATTERN'),
    partitionBy: Type.String(),
    withinMinutes: Type.Number(),
    result: Type.Boolean(),
    matchCount: Type.Integer({ minimum: 0 }),
    matches: Type.Array(
      Type.Object({
        partitionKey: Type.String(),
        completedAt: Type.String({ format: 'date-time' }),
        steps: Type.Array(
          Type.Object({
            eventType: Type.String(),
            events: Type.Integer({ minimum: 1 }),
            first: PatternEventSchema,
            last: PatternEventSchema,
          }),
        ),
        absent: Type.Union([
          Type.Object({ eventType: Type.String(), deadline: Type.String({ format: 'date-time' }) }),
          Type.Null(),
        ]),
      }),
    ),
  }),
);

const nullableNumber = Type.Union([Type.Number(), Type.Null()]);
const nullableString = Type.Union([Type.String(), Type.Null()]);

/** An ANOMALY rule as evaluated: the last completed bucket next to its band. */
export const ExplainedBandSchema = describes<ExplainedBand>()(
  Type.Object({
    measure: Type.Literal('band'),
    metric: literals(ANOMALY_METRICS),
    eventType: nullableString,
    source: nullableString,
    bucketMinutes: Type.Integer(),
    bucketStart: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    observed: nullableNumber,
    expected: nullableNumber,
    lower: nullableNumber,
    upper: nullableNumber,
    direction: literals(DIRECTIONS),
    outsideBuckets: Type.Integer({ minimum: 0 }),
    windowBuckets: Type.Integer({ minimum: 1 }),
    minFraction: Type.Number(),
    learning: Type.Boolean(),
    result: Type.Boolean(),
  }),
);

/** A condition tree as evaluated: a leaf, or AND / OR / NOT with its result and conditions. */
export const ConditionExplanationSchema = Type.Recursive(
  (Self) =>
    Type.Union([
      ExplainedConditionSchema,
      Type.Object({
        logicalOperator: literals(LOGICAL_OPERATORS),
        result: Type.Boolean(),
        conditions: Type.Array(Self),
      }),
    ]),
  { $id: 'ConditionExplanation' },
);

/** A rule as evaluated: a condition tree, a PATTERN rule's matches, or an ANOMALY rule's band. */
export const ExplanationSchema = Type.Union([
  ConditionExplanationSchema,
  ExplainedPatternSchema,
  ExplainedBandSchema,
]);

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Instant = Type.String({ format: 'date-time' });
const Values = Type.Record(Type.String(), Type.Number());

export const AlertSchema = describes<AlertRecord>()(
  Type.Object({
    id: Type.Integer(),
    ruleId: Type.Integer(),
    ruleName: Type.String(),
    ruleVersion: Type.Integer(),
    severity: literals(RULE_SEVERITIES),
    state: literals(ALERT_STATES),
    firedAt: Instant,
    triggeredAt: Instant,
    resolvedAt: nullable(Instant),
    resolvedReason: nullable(Type.String()),
    valuesAtFire: Values,
    valuesAtResolve: nullable(Values),
    acknowledgedAt: nullable(Instant),
    acknowledgedBy: nullable(Type.String()),
    acknowledgeComment: nullable(Type.String()),
    explanation: nullable(ExplanationSchema),
    resolveExplanation: nullable(ExplanationSchema),
    explanationText: Type.String(),
    silenced: Type.Boolean(),
    silenceId: nullable(Type.Integer()),
    heldByBudget: Type.Boolean(),
    matchedConditions: Type.Array(Type.String()),
    currentValues: Type.Record(Type.String(), Type.Number()),
    condition: Type.String(),
    message: Type.String(),
    deliveries: Type.Array(DeliveryResultSchema),
    resolveDeliveries: Type.Array(DeliveryResultSchema),
  }),
);
