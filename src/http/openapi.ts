/**
 * @module GET /api/v1/openapi.json: an OpenAPI 3.1 document generated from the route table's
 * typebox schemas, so the document cannot drift from the routes.
 */
import type { TSchema } from '@sinclair/typebox';
import { ErrorSchema } from '../schemas/event-responses.ts';
import { SERVICE_NAME, SERVICE_VERSION } from '../version.ts';
import { plain, withComponents } from './openapi-components.ts';
import type { Route } from './route-types.ts';

const openApiPath = (path: string): string => path.replace(/:(\w+)/g, '{$1}');

const API_PREFIX = '/api/v1/';

/** The tag of a route: its resource (`/api/v1/rules/...` -> rules); GET /metrics is Prometheus's. */
const tagOf = (path: string): string =>
  path.startsWith(API_PREFIX)
    ? (path.slice(API_PREFIX.length).split('/')[0] as string)
    : 'prometheus';

const TAGS: Readonly<Record<string, string>> = {
  events: 'Ingest, search and export events',
  metrics: 'The real-time metrics snapshot, its history and reset',
  rules: 'Alert rules: CRUD, lifecycle, tests, backtests, evaluation status',
  alerts: 'Alerts (incidents) and their acknowledgement',
  silences: 'Silences: incidents recorded but not notified',
  keys: 'API keys',
  'contact-points': 'Named notification targets',
  prometheus: "Vigil's own metrics in the Prometheus text format",
  'openapi.json': 'This document',
  'openapi.yaml': 'This document, as YAML',
};

const pascal = (word: string): string =>
  word
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');

/** `POST /api/v1/rules/:id/enable` -> `postRulesByIdEnable`, unless the route names its own. */
const operationIdOf = (route: Route): string =>
  route.doc.operationId ??
  route.method.toLowerCase() +
    route.path
      .replace(API_PREFIX, '/')
      .split('/')
      .filter((segment) => segment !== '')
      .map((segment) =>
        segment.startsWith(':') ? `By${pascal(segment.slice(1))}` : pascal(segment),
      )
      .join('');

/** The package is private and grants no licence (package.json has none): an SPDX reference. */
const LICENSE = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' };

/** Either header carries the same key; an operation accepts one or the other. */
const SECURITY_SCHEMES = {
  bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <key>' },
  apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
};

/** What every route that needs a key may also answer, whatever its own responses. */
const KEY_RESPONSES: Readonly<Record<number, TSchema | string>> = {
  401: ErrorSchema,
  403: ErrorSchema,
  429: ErrorSchema,
};

/** What the adapter (route.ts) answers before the handler runs, from the route's shape. */
function adapterResponses(route: Route): Record<number, TSchema> {
  const statuses = [
    // A path parameter that is not valid percent-encoding, or holds U+0000.
    ...(route.path.includes(':') ? [400] : []),
    // Malformed JSON, a body over MAX_BODY_BYTES, or one that is not JSON.
    ...(route.body === 'json' ? [400, 413, 415] : []),
  ];
  return Object.fromEntries(statuses.map((status) => [status, ErrorSchema]));
}

/** Errors are JSON on every route; other answers are JSON unless the route says otherwise. */
const mediaTypesOf = (doc: Route['doc'], status: number): readonly string[] =>
  status >= 400 ? ['application/json'] : [doc.mediaType ?? 'application/json'].flat();

function operation(route: Route, operationId: string): Record<string, unknown> {
  const { doc } = route;
  const body = doc.body;
  const isPublic = route.scope === 'public';
  const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const queryParams = Object.entries((doc.query?.properties ?? {}) as Record<string, TSchema>).map(
    ([name, schema]) => ({ name, in: 'query', required: false, schema: plain(schema) }),
  );
  // OpenAPI describes Content-Type by the request body's media types, never as a parameter.
  const headerParams = (route.headers ?? [])
    .filter((name) => name !== 'content-type')
    .map((name) => ({
      name,
      in: 'header',
      required: false,
      schema: { type: 'string' },
    }));
  const parameters = [...pathParams, ...queryParams, ...headerParams];
  const responses = Object.fromEntries(
    Object.entries({
      ...adapterResponses(route),
      ...(isPublic ? {} : KEY_RESPONSES),
      ...doc.responses,
    }).map(([status, schema]) => [
      status,
      typeof schema === 'string'
        ? { description: schema }
        : {
            description: `HTTP ${status}`,
            content: Object.fromEntries(
              mediaTypesOf(doc, Number(status)).map((type) => [type, { schema: plain(schema) }]),
            ),
          },
    ]),
  );
  return {
    operationId,
    tags: [tagOf(route.path)],
    summary: doc.summary,
    // Scope names in the requirement list are what OpenAPI 3.1 allows for any scheme type.
    security: isPublic ? [] : [{ bearer: [route.scope] }, { apiKey: [route.scope] }],
    'x-vigil-scope': route.scope,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body === undefined
      ? {}
      : {
          requestBody: {
            required: true,
            content: Object.fromEntries(
              [doc.bodyMediaType ?? 'application/json']
                .flat()
                .map((type) => [type, { schema: plain(body) }]),
            ),
          },
        }),
    responses,
  };
}

export function openApiDocument(routes: readonly Route[]): Record<string, unknown> {
  const operations: Record<string, Record<string, unknown>> = {};
  const ids = new Set<string>();
  for (const route of routes) {
    const entry = (operations[openApiPath(route.path)] ??= {});
    const id = operationIdOf(route);
    // Generated clients name their methods by it: two alike would collide there.
    if (ids.has(id)) throw new Error(`operationId ${id} twice`);
    ids.add(id);
    entry[route.method.toLowerCase()] = operation(route, id);
  }
  const schemas: Record<string, unknown> = {};
  const paths = withComponents(operations, schemas);
  const tags = [...new Set(routes.map((route) => tagOf(route.path)))].map((name) => ({
    name,
    description: TAGS[name] ?? name,
  }));
  return {
    openapi: '3.1.0',
    info: {
      title: SERVICE_NAME,
      version: SERVICE_VERSION,
      description: 'Event ingestion, real-time metrics and alerting. Reference: docs/api.md.',
      license: LICENSE,
    },
    // Relative: the document describes the server that serves it, wherever it is reached.
    servers: [{ url: '/', description: 'The Vigil instance serving this document' }],
    tags,
    components: { schemas: sorted(schemas), securitySchemes: SECURITY_SCHEMES },
    security: [{ bearer: [] }, { apiKey: [] }],
    paths,
  };
}

/** Components by name, so the document reads (and diffs) the same from one start to the next. */
const sorted = (schemas: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
