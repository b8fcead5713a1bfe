/**
 * @module The body of POST /api/v1/alerts/{id}/acknowledge: who acknowledges, and why (optional);
 * both bounded, no unknown field (DESIGN 2), each fault a 400 naming its field.
 */
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Characters } from './characters.ts';
import { schemaErrors } from './schema-errors.ts';

export const MAX_ACKNOWLEDGED_BY_CHARACTERS = 255;
export const MAX_ACKNOWLEDGE_COMMENT_CHARACTERS = 2000;

export const AcknowledgeBody = Type.Object(
  {
    by: Characters(
      1,
      MAX_ACKNOWLEDGED_BY_CHARACTERS,
      `by must be a string of 1 to ${MAX_ACKNOWLEDGED_BY_CHARACTERS} characters`,
    ),
    comment: Type.Optional(
      Type.Union([
        Characters(
          0,
          MAX_ACKNOWLEDGE_COMMENT_CHARACTERS,
          `comment must be a string of at most ${MAX_ACKNOWLEDGE_COMMENT_CHARACTERS} characters, or null`,
        ),
        Type.Null(),
      ]),
    ),
  },
  { additionalProperties: false },
);
export type AcknowledgeBody = Static<typeof AcknowledgeBody>;

const Check = TypeCompiler.Compile(AcknowledgeBody);

/** The body, or the errors by field (PostgreSQL text cannot hold U+0000: refused by name). */
export function checkAcknowledgeBody(
  body: unknown,
):
  | { readonly ok: true; readonly value: AcknowledgeBody }
  | { readonly ok: false; readonly errors: Record<string, string> } {
  if (!Check.Check(body)) {
    const errors = schemaErrors(Check.Errors(body));
    // A union's fault reads better as the comment's own message than typebox's union text.
    if (errors.comment !== undefined)
      errors.comment = `comment must be a string of at most ${MAX_ACKNOWLEDGE_COMMENT_CHARACTERS} characters, or null`;
    return { ok: false, errors };
  }
  const errors: Record<string, string> = {};
  if (body.by.includes('\u0000')) errors.by = 'by must not contain U+0000';
  if (typeof body.comment === 'string' && body.comment.includes('\u0000'))
    errors.comment = 'comment must not contain U+0000';
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value: body };
}
