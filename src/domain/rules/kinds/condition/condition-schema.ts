/**
 * @module The condition tree's config schemas (typebox), declared once: they check a request's
 * ruleConfig before the semantic checks, type it, and are the OpenAPI components of THRESHOLD and
 * RATE_CHANGE. The shape only: metric names, windows per kind and recovery sides are judged by
 * condition-validation.ts, with hints.
 */
import { Type, type Static } from '@sinclair/typebox';
import { LOGICAL_OPERATORS, MAX_LIFECYCLE_SECONDS, OPERATOR_NAMES } from '../../rule-types.ts';

const literals = <T extends string>(values: readonly T[]) =>
  Type.Union(values.map((v) => Type.Literal(v)));

const Lifecycle = {
  pendingSeconds: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_LIFECYCLE_SECONDS,
      description: 'How long the condition must hold before the rule fires (top level only)',
    }),
  ),
  keepFiringSeconds: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_LIFECYCLE_SECONDS,
      description: 'How long the condition must be false before the rule resolves (top level only)',
    }),
  ),
};

const leafProperties = {
  metric: Type.String({
    description: 'errorRate, eventsByType[<eventType>], secondsSinceLastEventBySource[<source>]...',
  }),
  operator: literals(OPERATOR_NAMES),
  threshold: Type.Number(),
  windowMinutes: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Default 5; the nearest ancestor node sets it' }),
  ),
  recoveryThreshold: Type.Optional(
    Type.Number({ description: 'While FIRING, compared instead of threshold (hysteresis)' }),
  ),
  ...Lifecycle,
};

/** RATE_CHANGE: one leaf; `threshold` is a percent change between two windows. */
export const ConditionLeafSchema = Type.Object(leafProperties, {
  $id: 'ConditionLeaf',
  additionalProperties: false,
  description: 'One comparison of a metric over a window',
});

/** THRESHOLD: a leaf, or AND / OR / NOT over conditions. */
export const ConditionSchema = Type.Recursive(
  (This) =>
    Type.Union([
      Type.Object(leafProperties, { additionalProperties: false }),
      Type.Object(
        {
          logicalOperator: literals(LOGICAL_OPERATORS),
          conditions: Type.Array(This, { minItems: 1 }),
          windowMinutes: Type.Optional(Type.Integer({ minimum: 1 })),
          ...Lifecycle,
        },
        { additionalProperties: false },
      ),
    ]),
  { $id: 'Condition', description: 'A comparison, or AND / OR / NOT over conditions' },
);

export type ConditionInput = Static<typeof ConditionSchema>;
