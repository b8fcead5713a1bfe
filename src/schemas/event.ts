/**
 * @module The event ingestion request (spec 2.2, DESIGN 2): typebox schema compiled once, plus
 * the checks a schema cannot express, turning a parsed body into a NewEvent or field errors.
 */
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { SEVERITIES, type NewEvent, type Severity } from '../domain/event.ts';
import { MAX_IDEMPOTENCY_KEY_CHARACTERS } from '../domain/idempotency.ts';
import { Characters } from './characters.ts';
import { depthOf, findUnstorable } from './json-guards.ts';
import { schemaErrors } from './schema-errors.ts';
import { parseInstant } from './timestamp.ts';

/** Deeper metadata is refused: it would only serve to exhaust a recursive reader. */
export const MAX_METADATA_DEPTH = 32;

const INSTANT_MESSAGE = 'must be an ISO 8601 instant with a zone, e.g. 2026-11-22T19:30:00.123Z';

/**
 * How far ahead of the server's clock a timestamp may be by default (issue 29,
 * EVENTS_MAX_FUTURE_HOURS): one far in the future would stay on top of every newest-first list. A
 * day covers clock skew and a zone written wrongly.
 */
export const MAX_FUTURE_SKEW_MS = 24 * 60 * 60 * 1000;
/** Tags of one event, and their sizes (issue 29): they are stored per event and shown in lists. */
export const MAX_TAGS = 64;
export const MAX_TAG_KEY_CHARACTERS = 255;
export const MAX_TAG_VALUE_CHARACTERS = 1024;

/** eventType, source, userId and sessionId: like the spec's eventType (spec 2.2). */
export const MAX_NAME_CHARACTERS = 255;

const Name = (what: string) =>
  Characters(
    1,
    MAX_NAME_CHARACTERS,
    `${what} must be a non-empty string of at most ${MAX_NAME_CHARACTERS} characters`,
  );
/** userId, sessionId: each sits in metrics snapshots and STOMP frames, so it is bounded too. */
const OptionalName = (what: string) =>
  Type.Union([Characters(0, MAX_NAME_CHARACTERS, ''), Type.Null()], {
    errorMessage: `${what} must be a string of at most ${MAX_NAME_CHARACTERS} characters, or null`,
  });

/**
 * Any key. typebox's default record key pattern `^(.*)$` does not match a key holding a line
 * break (or U+2028), and a key the pattern misses is not checked at all.
 */
const AnyKey = Type.String({ pattern: '^[\\s\\S]*$' });

const TAG_VALUE_MESSAGE = `tag values must be strings of at most ${MAX_TAG_VALUE_CHARACTERS} characters`;

export const EventRequestSchema = Type.Object(
  {
    eventType: Name('eventType'),
    source: Name('source'),
    timestamp: Type.Optional(Type.String({ errorMessage: INSTANT_MESSAGE })),
    userId: Type.Optional(OptionalName('userId')),
    sessionId: Type.Optional(OptionalName('sessionId')),
    severity: Type.Optional(
      Type.Union(
        SEVERITIES.map((s) => Type.Literal(s)),
        { errorMessage: `must be one of ${SEVERITIES.join(', ')}` },
      ),
    ),
    tags: Type.Optional(
      Type.Record(AnyKey, Characters(0, MAX_TAG_VALUE_CHARACTERS, TAG_VALUE_MESSAGE), {
        errorMessage: 'must be an object of string values',
      }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { errorMessage: 'must be an object' }),
    ),
    idempotencyKey: Type.Optional(
      Characters(
        1,
        MAX_IDEMPOTENCY_KEY_CHARACTERS,
        `idempotencyKey must be a string of 1 to ${MAX_IDEMPOTENCY_KEY_CHARACTERS} characters`,
      ),
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

const TAG_KEY = TypeCompiler.Compile(Characters(0, MAX_TAG_KEY_CHARACTERS, ''));

const aheadText = (ms: number): string => {
  const hours = ms / 3_600_000;
  return Number.isInteger(hours) ? `${hours} hours` : `${ms} ms`;
};

/** The bound on the tags as a whole (their count, their keys' length) that they break, if any. */
function tagsProblem(tags: Readonly<Record<string, unknown>>): string | null {
  const keys = Object.keys(tags);
  if (keys.length > MAX_TAGS) return `must hold at most ${MAX_TAGS} tags, not ${keys.length}`;
  if (keys.some((key) => !TAG_KEY.Check(key))) {
    return `tag keys must be at most ${MAX_TAG_KEY_CHARACTERS} characters`;
  }
  return null;
}

/**
 * Validates one event request; `receivedAt` is when the front read it (epoch ms). Every failing
 * field is named at once: the checks a schema cannot express run on whatever fields are there.
 * An idempotencyKey is claimed for `producer` (whose key the request carried). A timestamp more
 * than `maxFutureMs` after `receivedAt` is refused.
 */
export function checkEventRequest(
  body: unknown,
  receivedAt: number,
  mayHoldUnstorable: boolean,
  producer: number,
  maxFutureMs: number = MAX_FUTURE_SKEW_MS,
): EventCheck {
  const valid = check.Check(body);
  const errors = new Map(valid ? [] : Object.entries(schemaErrors(check.Errors(body))));
  const fields = isObject(body) ? body : {};
  let timestamp = receivedAt;
  if (typeof fields.timestamp === 'string' && !errors.has('timestamp')) {
    const parsed = parseInstant(fields.timestamp);
    if (parsed === null) errors.set('timestamp', INSTANT_MESSAGE);
    else if (parsed > receivedAt + maxFutureMs) {
      errors.set(
        'timestamp',
        `must not be more than ${aheadText(maxFutureMs)} ahead of the server clock`,
      );
    } else timestamp = parsed;
  }
  if (isObject(fields.tags) && !errors.has('tags')) {
    const problem = tagsProblem(fields.tags);
    if (problem !== null) errors.set('tags', problem);
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
  const event: NewEvent = {
    eventType: request.eventType,
    timestamp,
    source: request.source,
    userId: request.userId ?? null,
    sessionId: request.sessionId ?? null,
    severity: (request.severity ?? 'INFO') satisfies Severity,
    tags: request.tags ?? {},
    metadata: request.metadata ?? {},
    receivedAt,
  };
  const key = request.idempotencyKey;
  if (key === undefined) return { ok: true, event };
  const idempotency = { producer, key, timestampGiven: request.timestamp !== undefined };
  return { ok: true, event: { ...event, idempotency } };
}
