/**
 * @module POST /api/v1/silences: the body, checked once into SilenceFields (every fault a 400
 * naming its field, unknown fields with a "did you mean"), and the silence the routes answer with,
 * tied to its one declaration in src/domain/silences/silence.ts.
 */
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { RULE_SEVERITIES } from '../domain/rules/rule-types.ts';
import { suggest } from '../domain/suggest.ts';
import {
  MAX_SILENCE_DAYS,
  MAX_SILENCE_LEAD_DAYS,
  SILENCE_STATES,
  type SilenceFields,
  type SilenceView,
} from '../domain/silences/silence.ts';
import { Characters } from './characters.ts';
import { describes } from './describes.ts';
import { schemaErrors } from './schema-errors.ts';
import { parseInstant } from './timestamp.ts';

export const MAX_SILENCE_COMMENT_CHARACTERS = 500;
export const MAX_SILENCE_CREATED_BY_CHARACTERS = 100;
/** Rule ids are PostgreSQL `serial` (int4). */
const MAX_RULE_ID = 2147483647;
const DAY_MS = 86_400_000;

const INSTANT = 'must be an ISO 8601 instant with a zone';
const SEVERITY = `severity must be one of ${RULE_SEVERITIES.join(', ')}, or null`;

export const SilenceCreateBody = Type.Object(
  {
    ruleId: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: MAX_RULE_ID }), Type.Null()], {
        errorMessage: 'ruleId must be a positive integer (a rule id), or null',
        description: "Only this rule's incidents; absent or null: any rule's",
      }),
    ),
    severity: Type.Optional(
      Type.Union([...RULE_SEVERITIES.map((s) => Type.Literal(s)), Type.Null()], {
        errorMessage: SEVERITY,
        description: 'Only incidents of rules of this severity; absent or null: any severity',
      }),
    ),
    startsAt: Type.String({
      errorMessage: `startsAt ${INSTANT}`,
      description: 'ISO 8601 with a zone; an earlier instant is taken as the time of the request',
    }),
    endsAt: Type.String({
      errorMessage: `endsAt ${INSTANT}`,
      description: `ISO 8601 with a zone; in the future, at most ${MAX_SILENCE_DAYS} days after startsAt`,
    }),
    comment: Characters(
      1,
      MAX_SILENCE_COMMENT_CHARACTERS,
      `comment must be a string of 1 to ${MAX_SILENCE_COMMENT_CHARACTERS} characters`,
    ),
    createdBy: Characters(
      1,
      MAX_SILENCE_CREATED_BY_CHARACTERS,
      `createdBy must be a string of 1 to ${MAX_SILENCE_CREATED_BY_CHARACTERS} characters`,
    ),
  },
  {
    additionalProperties: false,
    errorMessage: 'must be a JSON object',
    examples: [
      {
        ruleId: 7,
        startsAt: '2026-11-25T22:00:00Z',
        endsAt: '2026-11-26T02:00:00Z',
        comment: 'database upgrade',
        createdBy: 'ann',
      },
    ],
  },
);
type SilenceCreateBody = Static<typeof SilenceCreateBody>;

const Check = TypeCompiler.Compile(SilenceCreateBody);
const FIELD_NAMES = Object.keys(SilenceCreateBody.properties);

/** typebox's faults by field, an unknown field with the known one it most likely meant. */
function shapeErrors(body: unknown): Record<string, string> {
  const errors = schemaErrors(Check.Errors(body));
  for (const field of Object.keys(errors)) {
    if (FIELD_NAMES.includes(field) || field === 'body') continue;
    const guess = suggest(field, FIELD_NAMES);
    if (guess !== null) errors[field] = `${field} is not a known field. Did you mean '${guess}'?`;
  }
  return errors;
}

export type SilenceBodyCheck =
  | { readonly ok: true; readonly fields: SilenceFields }
  | { readonly ok: false; readonly errors: Record<string, string> };

/**
 * The body as SilenceFields at `now` (epoch ms, the request's time), or every fault by field. A
 * start before `now` becomes `now`: a silence never covers time before it existed.
 */
export function checkSilenceBody(body: unknown, now: number): SilenceBodyCheck {
  if (!Check.Check(body)) return { ok: false, errors: shapeErrors(body) };
  const valid: SilenceCreateBody = body;
  const errors: Record<string, string> = {};
  const starts = parseInstant(valid.startsAt);
  const ends = parseInstant(valid.endsAt);
  if (starts === null) errors.startsAt = `startsAt ${INSTANT}`;
  else if (starts > now + MAX_SILENCE_LEAD_DAYS * DAY_MS)
    errors.startsAt = `startsAt must be at most ${MAX_SILENCE_LEAD_DAYS} days ahead`;
  const start = Math.max(starts ?? now, now);
  if (ends === null) errors.endsAt = `endsAt ${INSTANT}`;
  else if (ends <= now) errors.endsAt = 'endsAt must be in the future';
  else if (starts !== null && ends <= starts) errors.endsAt = 'endsAt must be after startsAt';
  else if (ends - start > MAX_SILENCE_DAYS * DAY_MS)
    errors.endsAt = `endsAt must be at most ${MAX_SILENCE_DAYS} days after startsAt`;
  // PostgreSQL text cannot hold U+0000.
  for (const field of ['comment', 'createdBy'] as const) {
    if (valid[field].includes('\u0000')) errors[field] = `${field} must not contain U+0000`;
  }
  if (Object.keys(errors).length > 0 || ends === null) return { ok: false, errors };
  return {
    ok: true,
    fields: {
      ruleId: valid.ruleId ?? null,
      severity: valid.severity ?? null,
      startsAt: start,
      endsAt: ends,
      comment: valid.comment,
      createdBy: valid.createdBy,
    },
  };
}

const Instant = Type.String({ format: 'date-time' });

export const SilenceSchema = describes<SilenceView>()(
  Type.Object(
    {
      id: Type.Integer(),
      ruleId: Type.Union([Type.Integer(), Type.Null()]),
      severity: Type.Union([...RULE_SEVERITIES.map((s) => Type.Literal(s)), Type.Null()]),
      startsAt: Instant,
      endsAt: Instant,
      comment: Type.String(),
      createdBy: Type.String(),
      createdAt: Instant,
      state: Type.Union(
        SILENCE_STATES.map((s) => Type.Literal(s)),
        {
          description: 'pending before startsAt, active until endsAt, then expired',
        },
      ),
    },
    {
      examples: [
        {
          id: 3,
          ruleId: 7,
          severity: null,
          startsAt: '2026-11-25T22:00:00.000Z',
          endsAt: '2026-11-26T02:00:00.000Z',
          comment: 'database upgrade',
          createdBy: 'ann',
          createdAt: '2026-11-25T15:04:05.123Z',
          state: 'pending',
        },
      ],
    },
  ),
);
