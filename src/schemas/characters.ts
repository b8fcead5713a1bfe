/**
 * @module Strings bounded in characters (code points), as JSON Schema's minLength / maxLength
 * count them; typebox's own String counts UTF-16 units, so 255 emoji would count as 510.
 */
import { Kind, Type, TypeRegistry, type TUnsafe } from '@sinclair/typebox';

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

/** A string of `minLength` to `maxLength` characters; every fault reports `errorMessage`. */
export const Characters = (
  minLength: number,
  maxLength: number,
  errorMessage: string,
): TUnsafe<string> =>
  Type.Unsafe<string>({ [Kind]: CHARACTERS, type: 'string', minLength, maxLength, errorMessage });
