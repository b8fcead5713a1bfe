/**
 * @module GET /api/v1/openapi.json: an OpenAPI 3.1 document generated from the route table's
 * typebox schemas, so the document cannot drift from the routes.
 */
import type { TSchema } from '@sinclair/typebox';
import { ErrorSchema } from '../schemas/event-responses.ts';
import { SERVICE_NAME, SERVICE_VERSION } from '../version.ts';
import type { Route } from './route-types.ts';

const openApiPath = (path: string): string => path.replace(/:(\w+)/g, '{$1}');

/** typebox schemas are JSON Schema; the round trip drops typebox's symbol keys. */
const plain = (schema: TSchema): unknown => JSON.parse(JSON.stringify(schema));

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

/** Errors are JSON on every route; other answers are JSON unless the route says otherwise. */
const mediaTypesOf = (doc: Route['doc'], status: number): readonly string[] =>
  status >= 400 ? ['application/json'] : [doc.mediaType ?? 'application/json'].flat();

function operation(route: Route): Record<string, unknown> {
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
    Object.entries(isPublic ? doc.responses : { ...KEY_RESPONSES, ...doc.responses }).map(
      ([status, schema]) => [
        status,
        typeof schema === 'string'
          ? { description: schema }
          : {
              description: `HTTP ${status}`,
              content: Object.fromEntries(
                mediaTypesOf(doc, Number(status)).map((type) => [type, { schema: plain(schema) }]),
              ),
            },
      ],
    ),
  );
  return {
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

const COMPONENTS = '#/components/schemas/';

/**
 * Every schema that names itself (`$id`: a rule kind's config, a rule variant) becomes one
 * component, defined once and referenced with `$ref` wherever it appears; typebox's own
 * references to an `$id` (a recursive schema's) are pointed at the component too.
 */
function hoistIds(value: unknown, components: Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((v) => hoistIds(v, components));
  if (typeof value !== 'object' || value === null) return value;
  const { $id, ...rest } = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(rest)) {
    out[key] =
      key === '$ref' && typeof v === 'string' && !v.startsWith('#')
        ? COMPONENTS + v
        : hoistIds(v, components);
  }
  if (typeof $id !== 'string') return out;
  components[$id] ??= out;
  return { $ref: COMPONENTS + $id };
}

export function openApiDocument(routes: readonly Route[]): Record<string, unknown> {
  const operations: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const entry = (operations[openApiPath(route.path)] ??= {});
    entry[route.method.toLowerCase()] = operation(route);
  }
  const schemas: Record<string, unknown> = {};
  const paths = hoistIds(operations, schemas);
  return {
    openapi: '3.1.0',
    info: { title: SERVICE_NAME, version: SERVICE_VERSION },
    components: { schemas, securitySchemes: SECURITY_SCHEMES },
    security: [{ bearer: [] }, { apiKey: [] }],
    paths,
  };
}
