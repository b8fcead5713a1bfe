/**
 * @module A request's JSON body (front thread): parsed, an object or array, and bounded in depth
 * before any recursive check walks it. Shared by the adapter and the ingest formats that read
 * JSON out of a body taken as bytes (CloudEvents binary mode).
 */
import { AppError, validationError } from '../errors.ts';
import { depthOf } from '../schemas/json-guards.ts';

/**
 * Deeper than any valid body (event metadata nests at most 32 levels, rule JSON 64): refused
 * before any recursive check can overflow the stack.
 */
const MAX_BODY_DEPTH = 100;

/**
 * How many `{` and `[` the text holds: an upper bound of its nesting depth, counted without
 * allocating, so the tree walk runs only for bodies that could be too deep (not on every ingest).
 */
function openers(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) n++;
  }
  return n;
}

/** The body's JSON: an object or array, not deeper than any valid body (else 400). */
export function parseJson(text: string): unknown {
  if (text.trim() === '')
    throw new AppError('MALFORMED_JSON', 'Request body is empty; a JSON body is required');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AppError('MALFORMED_JSON', `Malformed JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object') {
    throw new AppError('MALFORMED_JSON', 'Request body must be a JSON object');
  }
  // Schema checks recurse: a body nested deeper than any valid one is refused before them.
  if (openers(text) > MAX_BODY_DEPTH && depthOf(value) > MAX_BODY_DEPTH) {
    throw validationError({ body: `The body must not nest deeper than ${MAX_BODY_DEPTH} levels` });
  }
  return value;
}
