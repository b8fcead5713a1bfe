/**
 * @module POST /api/v1/keys: the body, checked once into ApiKeyFields, and the shapes the key
 * routes answer with (tied to the record in src/domain/api-key.ts).
 */
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { KEY_SCOPES, type ApiKeyFields, type ApiKeyRecord } from '../domain/api-key.ts';
import { Characters } from './characters.ts';
import { describes } from './describes.ts';
import { schemaErrors } from './schema-errors.ts';
import { parseInstant } from './timestamp.ts';

export const MAX_ALLOWED_SOURCES = 100;
const MAX_RATE = 10_000_000;

export const KeyCreateBody = Type.Object(
  {
    name: Characters(1, 255, 'name must be a string of 1 to 255 characters'),
    scope: Type.Union(
      KEY_SCOPES.map((s) => Type.Literal(s)),
      { errorMessage: `scope must be one of ${KEY_SCOPES.join(', ')}` },
    ),
    expiresAt: Type.Optional(
      Type.String({ errorMessage: 'expiresAt must be an ISO 8601 instant with a zone' }),
    ),
    allowedSources: Type.Optional(
      Type.Array(Characters(1, 255, 'each source must be a string of 1 to 255 characters'), {
        minItems: 1,
        maxItems: MAX_ALLOWED_SOURCES,
        uniqueItems: true,
        errorMessage: `allowedSources must be 1 to ${MAX_ALLOWED_SOURCES} distinct sources`,
      }),
    ),
    rateLimitPerSecond: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: MAX_RATE,
        errorMessage: `rateLimitPerSecond must be a number above 0 and at most ${MAX_RATE}`,
      }),
    ),
  },
  { additionalProperties: false, errorMessage: 'must be a JSON object' },
);
type KeyCreateBody = Static<typeof KeyCreateBody>;

export type KeyBodyCheck =
  | { readonly ok: true; readonly fields: ApiKeyFields }
  | { readonly ok: false; readonly errors: Record<string, string> };

export function checkKeyBody(body: unknown, now: number): KeyBodyCheck {
  if (!Value.Check(KeyCreateBody, body)) {
    return { ok: false, errors: schemaErrors(Value.Errors(KeyCreateBody, body)) };
  }
  const valid: KeyCreateBody = body;
  const errors: Record<string, string> = {};
  const expires = valid.expiresAt === undefined ? null : parseInstant(valid.expiresAt);
  if (valid.expiresAt !== undefined && expires === null)
    errors.expiresAt = 'expiresAt must be an ISO 8601 instant with a zone';
  else if (expires !== null && expires <= now) errors.expiresAt = 'expiresAt must be in the future';
  if (valid.allowedSources !== undefined && valid.scope !== 'ingest')
    errors.allowedSources = 'allowedSources applies to ingest keys only';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    fields: {
      name: valid.name,
      scope: valid.scope,
      expiresAt: expires === null ? null : new Date(expires).toISOString(),
      allowedSources: valid.allowedSources ?? null,
      rateLimitPerSecond: valid.rateLimitPerSecond ?? null,
    },
  };
}

const Instant = Type.String({ format: 'date-time' });
const NullableInstant = Type.Union([Instant, Type.Null()]);

export const ApiKeySchema = describes<ApiKeyRecord>()(
  Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    scope: Type.Union(KEY_SCOPES.map((s) => Type.Literal(s))),
    prefix: Type.String({ description: "The key's first characters, to tell keys apart" }),
    expiresAt: NullableInstant,
    allowedSources: Type.Union([Type.Array(Type.String()), Type.Null()]),
    rateLimitPerSecond: Type.Union([Type.Number(), Type.Null()]),
    createdAt: Instant,
    lastUsedAt: NullableInstant,
    revokedAt: NullableInstant,
  }),
);

export const CreatedKeySchema = Type.Composite([
  ApiKeySchema,
  Type.Object({
    key: Type.String({ description: 'The key itself: shown this once, never again' }),
  }),
]);
