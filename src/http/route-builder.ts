/**
 * @module The route builder the handler modules share: routes under one path prefix, each with its
 * summary, responses and body schema, its scope chosen by method.
 */
import type { Route, Scope } from './route-types.ts';

export type RouteOf = (
  method: Route['method'],
  path: string,
  summary: string,
  responses: Route['doc']['responses'],
  handle: Route['handle'],
  body?: Route['doc']['body'],
) => Route;

/** Routes under `prefix`; a `body` schema makes the route take a JSON body. */
export const routesUnder =
  (prefix: string, scopeOf: (method: Route['method']) => Scope): RouteOf =>
  (method, path, summary, responses, handle, body) => ({
    method,
    path: `${prefix}${path}`,
    scope: scopeOf(method),
    body: body === undefined ? 'none' : 'json',
    doc: { summary, responses, ...(body === undefined ? {} : { body }) },
    handle,
  });
