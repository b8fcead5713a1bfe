/**
 * @module Response schema of the alert endpoints: documents the stored alert in OpenAPI, tied at
 * compile time to its one declaration in src/domain/rules/alert.ts.
 */
import { Type } from '@sinclair/typebox';
import type { AlertRecord, DeliveryResult } from '../domain/rules/alert.ts';
import { RULE_SEVERITIES } from '../domain/rules/rule-types.ts';
import { describes } from './describes.ts';

const literals = <T extends string>(values: readonly T[]) =>
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

export const AlertSchema = describes<AlertRecord>()(
  Type.Object({
    id: Type.Integer(),
    ruleId: Type.Integer(),
    ruleName: Type.String(),
    ruleVersion: Type.Integer(),
    severity: literals(RULE_SEVERITIES),
    triggeredAt: Type.String({ format: 'date-time' }),
    matchedConditions: Type.Array(Type.String()),
    currentValues: Type.Record(Type.String(), Type.Number()),
    condition: Type.String(),
    message: Type.String(),
    deliveries: Type.Array(DeliveryResultSchema),
  }),
);
