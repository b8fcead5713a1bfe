/**
 * @module Content-Length headers that disagree (issue 29). uWebSockets.js reads the first one and
 * ignores the others, so a request with `Content-Length: 30` and `Content-Length: 5` was taken at
 * 30 bytes while a proxy in front may take it at 5: the remainder would be read as a smuggled
 * request. RFC 9112 section 6.3: differing values make the message invalid (400, then close);
 * repeated identical values, also as a list (`5, 5`), may be taken as one.
 */
import type uWS from 'uWebSockets.js';
import { validationError, type AppError } from '../errors.ts';

/**
 * The error to answer when the request's Content-Length values differ; null when they do not.
 * Every request with a body passes here: the common case (one header, one value) allocates nothing.
 */
export function conflictingContentLength(req: uWS.HttpRequest): AppError | null {
  let first: string | undefined;
  let values: Set<string> | undefined;
  req.forEach((name, value) => {
    if (name !== 'content-length') return;
    if (first === undefined && !value.includes(',')) {
      first = value.trim();
      return;
    }
    values ??= new Set(first === undefined ? [] : [first]);
    for (const part of value.split(',')) values.add(part.trim());
  });
  if (values === undefined || values.size <= 1) return null;
  return validationError({
    'content-length': `Content-Length headers disagree (${[...values].join(', ')}): send one`,
  });
}
