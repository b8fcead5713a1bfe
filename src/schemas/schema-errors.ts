/**
 * @module typebox errors -> the `errors` object of a 400 (DESIGN 2, 7): one message per field,
 * keyed by dotted path (`tags.region`), the first error of each path winning.
 */
import { ValueErrorType, type ValueError, type ValueErrorIterator } from '@sinclair/typebox/errors';

const fieldOf = (path: string): string =>
  path
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');

function messageOf(error: ValueError, field: string): string {
  if (error.type === ValueErrorType.ObjectRequiredProperty) return `${field} is required`;
  if (error.type === ValueErrorType.ObjectAdditionalProperties)
    return `${field} is not a known field`;
  const custom = (error.schema as { errorMessage?: unknown }).errorMessage;
  return typeof custom === 'string' ? custom : error.message;
}

export function schemaErrors(errors: ValueErrorIterator): Record<string, string> {
  // A Map, then fromEntries: a field named `__proto__` must stay an ordinary key.
  const fields = new Map<string, string>();
  for (const error of errors) {
    const field = fieldOf(error.path) || 'body';
    if (fields.has(field)) continue;
    fields.set(field, messageOf(error, field));
  }
  return Object.fromEntries(fields);
}
