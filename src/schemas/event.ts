/**
 * @module The event ingestion request (spec 2.2, DESIGN 2): typebox schema compiled once, plus
 * the checks a schema cannot express, turning a parsed body into a NewEvent or field errors.
 */
import { Kind, Type, TypeRegistry, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { SEVERITIES, type NewEvent, type Severity } from '../domain/event.ts';
import { depthOf, findUnstorable } from './json-guards.ts';
import { schemaErrors } from './schema-errors.ts';
import { parseInstant } from './timestamp.ts';

/** Deeper metadata is refused: it would only serve to exhaust a recursive reader. */
export const MAX_METADATA_DEPTH = 32;

const INSTANT_MESSAGE = 'must be an ISO 8601 instant with a zone, e.g. 2026-11-22T19:30:00.123Z';

/**
 * A string whose length counts characters (code points), as JSON Schema's minLength/maxLength
 * do; typebox's own String counts UTF-16 units, so 255 emoji would count as 510.
 */
const CHARACTERS = 'VigilCharacters';
interface CharactersSchema {
  readonly minLength: number;
  readonly maxLength: number;
}
/** Code points in `text`, counting stops past `max`. */
const characters = (text: string, max: number): number => {
  let n = 0;
  for (let i = 0; i < text.length && n <= max; i++, n++) {
    if ((text.codePointAt(i) as number) > 0xffff) i++;
  }
  return n;
};
TypeRegistry.Set<CharactersSchema>(CHARACTERS, (schema, value) => {
  if (typeof value !== 'string') return false;
  // A code point is one or two UTF-16 units: count only when the unit count cannot decide.
  if (value.length >= schema.minLength && value.length <= schema.maxLength) return true;
  if (value.length < schema.minLength || value.length > 2 * schema.maxLength) return false;
  const n = characters(value, schema.maxLength);
  return n >= schema.minLength && n <= schema.maxLength;
});

const Name = (what: string) =>
  Type.Unsafe<string>({
    [Kind]: CHARACTERS,
    type: 'string',
    minLength: 1,
    maxLength: 255,
    errorMessage: `${what} must be a non-empty string of at most 255 characters`,
  });
const NullableString = Type.Union([Type.String(), Type.Null()], {
  errorMessage: 'must be a string or null',
});

/**
 * Any key. typebox's default record key pattern `^(.*)$` does not match a key holding a line
 * break (or U+2028), and a key the pattern misses is not checked at all.
 */
const AnyKey = Type.String({ pattern: '^[\\s\\S]*$' });

export const EventRequestSchema = Type.Object(
  {
    eventType: Name('eventType'),
    source: Name('source'),
    timestamp: Type.Optional(Type.String({ errorMessage: INSTANT_MESSAGE })),
    userId: Type.Optional(NullableString),
    sessionId: Type.Optional(NullableString),
    severity: Type.Optional(
      Type.Union(
        SEVERITIES.map((s) => Type.Literal(s)),
        { errorMessage: `must be one of ${SEVERITIES.join(', ')}` },
      ),
    ),
    tags: Type.Optional(
      Type.Record(AnyKey, Type.String({ errorMessage: 'tag values must be strings' }), {
        errorMessage: 'must be an object of string values',
      }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { errorMessage: 'must be an object' }),
    ),
  },
  { additionalProperties: false, errorMessage: 'must be a JSON object' },
);
export type EventRequest = Static<typeof EventRequestSchema>;

const check = TypeCompiler.Compile(EventRequestSchema);

export type EventCheck =
  | { readonly ok: true; readonly event: NewEvent }
  | { readonly ok: false; readonly errors: Record<string, string> };

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Validates one event request; `receivedAt` is when the front read it (epoch ms). Every failing
 * field is named at once: the checks a schema cannot express run on whatever fields are there.
 */
export function checkEventRequest(
  body: unknown,
  receivedAt: number,
  mayHoldUnstorable: boolean,
): EventCheck {
  const valid = check.Check(body);
  const errors = new Map(valid ? [] : Object.entries(schemaErrors(check.Errors(body))));
  const fields = isObject(body) ? body : {};
  let timestamp = receivedAt;
  if (typeof fields.timestamp === 'string' && !errors.has('timestamp')) {
    const parsed = parseInstant(fields.timestamp);
    if (parsed === null) errors.set('timestamp', INSTANT_MESSAGE);
    else timestamp = parsed;
  }
  if (
    isObject(fields.metadata) &&
    !errors.has('metadata') &&
    depthOf(fields.metadata) > MAX_METADATA_DEPTH
  ) {
    errors.set('metadata', `must not nest deeper than ${MAX_METADATA_DEPTH} levels`);
  }
  if (mayHoldUnstorable) {
    for (const bad of findUnstorable(body)) {
      const field = bad.path === '' ? 'body' : bad.path;
      if (!errors.has(field)) errors.set(field, bad.message);
    }
  }
  if (!valid || errors.size > 0) return { ok: false, errors: Object.fromEntries(errors) };
  const request = body;
  return {
    ok: true,
    event: {
      eventType: request.eventType,
      timestamp,
      source: request.source,
      userId: request.userId ?? null,
      sessionId: request.sessionId ?? null,
      severity: (request.severity ?? 'INFO') satisfies Severity,
      tags: request.tags ?? {},
      metadata: request.metadata ?? {},
      receivedAt,
    },
  };
}
