/**
 * @module The event ingestion request (spec 2.2, DESIGN 2): typebox schema compiled once, plus
 * the checks a schema cannot express, turning a parsed body into a NewEvent or field errors.
 */
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { SEVERITIES, type Severity } from '../domain/event.ts';
import type { NewEvent } from '../protocol/storage.ts';
import { depthOf, findNul } from './json-guards.ts';
import { schemaErrors } from './schema-errors.ts';
import { parseInstant } from './timestamp.ts';

/** Deeper metadata is refused: it would only serve to exhaust a recursive reader. */
export const MAX_METADATA_DEPTH = 32;

const INSTANT_MESSAGE = 'must be an ISO 8601 instant with a zone, e.g. 2026-11-22T19:30:00.123Z';

const Name = (what: string) =>
  Type.String({
    minLength: 1,
    maxLength: 255,
    errorMessage: `${what} must be a non-empty string of at most 255 characters`,
  });
const NullableString = Type.Union([Type.String(), Type.Null()], {
  errorMessage: 'must be a string or null',
});

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
      Type.Record(Type.String(), Type.String({ errorMessage: 'tag values must be strings' }), {
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

/** Validates one event request; `receivedAt` is when the front read it (epoch ms). */
export function checkEventRequest(
  body: unknown,
  receivedAt: number,
  mayHaveNul: boolean,
): EventCheck {
  if (!check.Check(body)) return { ok: false, errors: schemaErrors(check.Errors(body)) };
  const errors = new Map<string, string>();
  let timestamp = receivedAt;
  if (body.timestamp !== undefined) {
    const parsed = parseInstant(body.timestamp);
    if (parsed === null) errors.set('timestamp', INSTANT_MESSAGE);
    else timestamp = parsed;
  }
  if (body.metadata !== undefined && depthOf(body.metadata) > MAX_METADATA_DEPTH) {
    errors.set('metadata', `must not nest deeper than ${MAX_METADATA_DEPTH} levels`);
  }
  if (mayHaveNul) {
    const at = findNul(body);
    if (at !== null)
      errors.set(at === '' ? 'body' : at, 'must not contain the NUL character (U+0000)');
  }
  if (errors.size > 0) return { ok: false, errors: Object.fromEntries(errors) };
  return {
    ok: true,
    event: {
      eventType: body.eventType,
      timestamp,
      source: body.source,
      userId: body.userId ?? null,
      sessionId: body.sessionId ?? null,
      severity: (body.severity ?? 'INFO') satisfies Severity,
      tags: body.tags ?? {},
      metadata: body.metadata ?? {},
      receivedAt,
    },
  };
}
