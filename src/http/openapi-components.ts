/**
 * @module The OpenAPI document's shared schemas: each defined once under `components.schemas` and
 * referenced with `$ref` wherever it appears, and the typebox-only keywords left out, so linters,
 * validators and generators read the document as plain OpenAPI 3.1 (JSON Schema 2020-12).
 */
import type { TSchema } from '@sinclair/typebox';
import { AlertSchema, ExplanationSchema } from '../schemas/alert-responses.ts';
import { ApiKeySchema } from '../schemas/api-key.ts';
import { BacktestResultSchema } from '../schemas/backtest-responses.ts';
import {
  AckSchema,
  ErrorSchema,
  EventPageSchema,
  EventSchema,
  HealthSchema,
} from '../schemas/event-responses.ts';
import { MetricsSnapshotSchema } from '../schemas/metrics-snapshot.ts';
import { RuleTestResultSchema } from '../schemas/rule-test-responses.ts';
import { SilenceSchema } from '../schemas/silence.ts';

export const COMPONENTS = '#/components/schemas/';

/** Schemas worth a name: each is found wherever it was composed in, by its JSON. */
const NAMED: Readonly<Record<string, TSchema>> = {
  Error: ErrorSchema,
  Event: EventSchema,
  EventPage: EventPageSchema,
  EventAccepted: AckSchema,
  Health: HealthSchema,
  MetricsSnapshot: MetricsSnapshotSchema,
  Alert: AlertSchema,
  Explanation: ExplanationSchema,
  RuleTestResult: RuleTestResultSchema,
  BacktestResult: BacktestResultSchema,
  Silence: SilenceSchema,
  ApiKey: ApiKeySchema,
};

/**
 * Keywords typebox schemas carry for validation only (schema-errors.ts reads `errorMessage`);
 * they are not JSON Schema, so the served document leaves them out.
 */
const VALIDATION_ONLY = new Set(['errorMessage']);

/** Keys whose value maps names (not keywords) to schemas. */
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs']);

/** typebox schemas are JSON Schema; the round trip drops typebox's symbol keys. */
export const plain = (schema: TSchema): unknown => JSON.parse(JSON.stringify(schema));

/** Objects that may be schemas: only these are compared with the named ones. */
const schemaLike = (o: Record<string, unknown>): boolean =>
  'type' in o || 'anyOf' in o || 'oneOf' in o || 'allOf' in o;

/**
 * `tree` with every named schema, and every schema that names itself (`$id`: a rule kind's
 * config, a rule variant, a recursive schema), replaced by a `$ref` to its one component in
 * `components`; typebox's own references to an `$id` point at the component too.
 */
export function withComponents(tree: unknown, components: Record<string, unknown>): unknown {
  const byJson = new Map<string, string>();
  for (const [name, schema] of Object.entries(NAMED)) byJson.set(JSON.stringify(schema), name);
  const visit = (value: unknown, root: boolean): unknown => {
    if (Array.isArray(value)) return value.map((v) => visit(v, false));
    if (typeof value !== 'object' || value === null) return value;
    const node = value as Record<string, unknown>;
    if (!root && schemaLike(node)) {
      const name = byJson.get(JSON.stringify(node));
      if (name !== undefined) {
        if (!(name in components)) {
          components[name] = {}; // taken before the walk, for a schema that holds itself
          components[name] = visit(node, true);
        }
        return { $ref: COMPONENTS + name };
      }
    }
    const { $id, ...rest } = node;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(rest)) {
      if (VALIDATION_ONLY.has(key)) continue;
      if (key === '$ref' && typeof v === 'string' && !v.startsWith('#')) out[key] = COMPONENTS + v;
      else if (NAME_MAPS.has(key) && typeof v === 'object' && v !== null && !Array.isArray(v)) {
        out[key] = Object.fromEntries(
          Object.entries(v).map(([name, schema]) => [name, visit(schema, false)]),
        );
      } else out[key] = visit(v, false);
    }
    if (typeof $id !== 'string') return out;
    components[$id] ??= out;
    return { $ref: COMPONENTS + $id };
  };
  return visit(tree, true);
}
