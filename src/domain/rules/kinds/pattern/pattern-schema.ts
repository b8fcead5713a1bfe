/**
 * @module The PATTERN config schema (typebox), declared once: checked before the semantic checks
 * (pattern-validation.ts, with its hints), and the OpenAPI component.
 */
import { Type, type Static } from '@sinclair/typebox';
import { CONTIGUITIES, PARTITION_FIELDS } from './pattern-config.ts';
import { MAX_LIFECYCLE_SECONDS, OPERATOR_NAMES } from '../../rule-types.ts';

const Where = Type.Optional(
  Type.Array(
    Type.Object(
      {
        field: Type.String({ description: 'An event field, or tags.<key>' }),
        operator: Type.String({ description: `One of ${OPERATOR_NAMES.join(', ')}` }),
        value: Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]),
      },
      { additionalProperties: false },
    ),
  ),
);

export const PatternConfigSchema = Type.Object(
  {
    partitionBy: Type.String({ description: `${PARTITION_FIELDS.join(', ')} or tags.<key>` }),
    withinMinutes: Type.Number({ description: 'The whole sequence within this many minutes' }),
    steps: Type.Array(
      Type.Object(
        {
          eventType: Type.String(),
          where: Where,
          times: Type.Optional(
            Type.Object({ min: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
          ),
          contiguity: Type.Optional(Type.String({ description: CONTIGUITIES.join(' or ') })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1 },
    ),
    absent: Type.Optional(
      Type.Union([
        Type.Object(
          { eventType: Type.String(), where: Where, withinMinutes: Type.Number() },
          { additionalProperties: false },
        ),
        Type.Null(),
      ]),
    ),
    maxPartitions: Type.Optional(Type.Integer({ minimum: 1 })),
    keepFiringSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_LIFECYCLE_SECONDS })),
  },
  {
    $id: 'PatternConfig',
    additionalProperties: false,
    description: 'A sequence of events per partition, optionally followed by an absence',
  },
);
export type PatternConfigInput = Static<typeof PatternConfigSchema>;
