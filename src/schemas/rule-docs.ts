/**
 * @module The rule shapes of the OpenAPI document: the create body and the stored rule, one
 * variant per rule kind (kinds/registry.ts) told apart by `ruleType`, each with its kind's config
 * schema; the update body with any kind's config. Built from the kinds, so a new kind appears here
 * by itself. Request validation stays checkRuleBody's (rule.ts), whose messages tests hold.
 */
import { Type, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { ruleKinds } from '../domain/rules/kinds/registry.ts';
import { RULE_STATUSES } from '../domain/rules/rule-types.ts';
import { RuleCreateBody } from './rule.ts';

/** `RATE_CHANGE` → `RateChange`: the part of a component name a kind gives. */
const pascal = (type: string): string =>
  type
    .toLowerCase()
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');

const COMPONENTS = '#/components/schemas/';

/** One variant per kind, as components `<prefix><Kind>`, in a oneOf with a discriminator. */
function byKind(prefix: string, properties: TProperties, required: readonly string[]): TSchema {
  const variants = ruleKinds().all.map((kind) => {
    const id = `${prefix}${pascal(kind.type)}`;
    const object: TObject = Type.Object({
      ...properties,
      ruleType: Type.Literal(kind.type),
      ruleConfig: kind.configSchema,
    });
    return { ...object, $id: id, required: [...required, 'ruleType', 'ruleConfig'] };
  });
  const mapping = Object.fromEntries(
    ruleKinds().all.map((kind) => [kind.type, COMPONENTS + prefix + pascal(kind.type)]),
  );
  return Type.Unsafe({
    oneOf: variants,
    discriminator: { propertyName: 'ruleType', mapping },
  });
}

const { ruleType: _type, ruleConfig: _config, ...authored } = RuleCreateBody.properties;

/** POST /api/v1/rules (and /rules/test): the body, by kind. */
export const RuleCreateDoc = byKind('RuleCreate', authored, ['name', 'severity']);

/** PUT /api/v1/rules/{id}: any field; a ruleConfig alone is checked against the stored type. */
export const RuleUpdateDoc = Type.Object(
  {
    ...Type.Partial(Type.Object(authored)).properties,
    ruleType: Type.Optional(Type.Union(ruleKinds().types.map((t) => Type.Literal(t)))),
    ruleConfig: Type.Optional(Type.Union(ruleKinds().all.map((k) => k.configSchema))),
  },
  { additionalProperties: false },
);

const Timestamp = Type.String({ description: 'UTC local date-time, no zone' });

/** A rule as stored and answered (RuleRecord), by kind. */
export const RuleResponse = byKind(
  'Rule',
  {
    id: Type.Integer(),
    ...Type.Required(Type.Object(authored)).properties,
    status: Type.Union(RULE_STATUSES.map((s) => Type.Literal(s))),
    generatedDrl: Type.String(),
    drlHash: Type.String({ description: 'SHA-256 of generatedDrl, lower-case hex' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    lastTriggeredAt: Type.Union([Timestamp, Type.Null()]),
    triggerCount: Type.Integer(),
    version: Type.Integer(),
  },
  [
    'id',
    ...Object.keys(authored),
    'status',
    'generatedDrl',
    'drlHash',
    'createdAt',
    'updatedAt',
    'lastTriggeredAt',
    'triggerCount',
    'version',
  ],
);
