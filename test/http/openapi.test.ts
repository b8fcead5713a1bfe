// GET /api/v1/openapi.json: every endpoint of the spec (4.1-4.4) is documented, every documented
// operation is really routed, and each documented path answers 405 with exactly the documented
// methods in Allow, so the document and the router cannot drift apart.
import t from 'tap';
import { startTestService } from '../support/service.ts';

const svc = await startTestService(t);

interface Operation {
  readonly parameters?: readonly { name: string; in: string }[];
  readonly requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  readonly responses: Record<string, unknown>;
}
interface OpenApi {
  readonly openapi: string;
  readonly info: { title: string; version: string };
  readonly paths: Record<string, Record<string, Operation>>;
}

const res = await svc.request('/api/v1/openapi.json');
const doc = (await res.json()) as OpenApi;

/** `{eventType}`, `{id}`... all read `{}`: the names of path parameters are the document's choice. */
const shape = (path: string): string => path.replace(/\{[^}]*\}/g, '{}');

const SPEC: readonly string[] = [
  'POST /api/v1/events',
  'POST /api/v1/events/batch',
  'GET /api/v1/events',
  'GET /api/v1/events/type/{}',
  'GET /api/v1/events/{}',
  'GET /api/v1/events/health',
  'GET /api/v1/events/test',
  'POST /api/v1/rules',
  'GET /api/v1/rules',
  'GET /api/v1/rules/{}',
  'PUT /api/v1/rules/{}',
  'DELETE /api/v1/rules/{}',
  'POST /api/v1/rules/{}/enable',
  'POST /api/v1/rules/{}/disable',
  'POST /api/v1/rules/{}/archive',
  'GET /api/v1/rules/active',
  'GET /api/v1/rules/type/{}',
  'GET /api/v1/rules/status/{}',
  'GET /api/v1/rules/search',
  'GET /api/v1/rules/top-triggered',
  'GET /api/v1/rules/statistics',
  'POST /api/v1/rules/regenerate-drls',
  'POST /api/v1/rules/test',
  'POST /api/v1/rules/test/{}',
  'GET /api/v1/metrics',
  'POST /api/v1/metrics/reset',
  'GET /api/v1/openapi.json',
];

const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
  Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path })),
);

void t.test('an OpenAPI 3.1 document of this service', async (t) => {
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'application/json');
  t.equal(doc.openapi, '3.1.0');
  t.equal(doc.info.title, 'vigil');
  t.match(doc.info.version, /^[0-9]+\.[0-9]+\.[0-9]+/);
});

void t.test('every endpoint of the spec is documented', async (t) => {
  const have = new Set(documented.map((o) => `${o.method} ${shape(o.path)}`));
  for (const endpoint of SPEC) t.ok(have.has(endpoint), endpoint);
});

void t.test('every documented operation is routed', async (t) => {
  for (const { method, path } of documented) {
    const url = path.replace(/\{[^}]*\}/g, '1');
    const res = await svc.request(url, {
      method,
      headers: { 'content-type': 'application/json' },
      body: method === 'GET' ? null : '{}',
    });
    const body = (await res.json().catch(() => null)) as { message?: unknown } | null;
    const unrouted =
      res.status === 405 || (res.status === 404 && String(body?.message).startsWith('No route'));
    t.notOk(unrouted, `${method} ${path} answers ${res.status}`);
  }
});

void t.test('each documented path allows exactly its documented methods', async (t) => {
  for (const [path, ops] of Object.entries(doc.paths)) {
    const url = path.replace(/\{[^}]*\}/g, '1');
    const res = await svc.request(url, { method: 'PATCH' });
    t.equal(res.status, 405, `PATCH ${path}`);
    const allow = (res.headers.get('allow') ?? '').split(',').map((m) => m.trim());
    t.same(
      allow.sort(),
      Object.keys(ops)
        .map((m) => m.toUpperCase())
        .sort(),
      `Allow of ${path}`,
    );
    await res.arrayBuffer();
  }
});

void t.test('the event endpoints document their inputs', async (t) => {
  const ingest = doc.paths['/api/v1/events']?.post;
  const schema = ingest?.requestBody?.content['application/json']?.schema;
  t.match(schema, {
    type: 'object',
    additionalProperties: false,
    required: ['eventType', 'source'],
    properties: {
      eventType: { type: 'string', minLength: 1, maxLength: 255 },
      source: { type: 'string', minLength: 1, maxLength: 255 },
      timestamp: { type: 'string' },
      userId: {},
      sessionId: {},
      severity: {},
      tags: { type: 'object' },
      metadata: { type: 'object' },
    },
  });
  t.ok(ingest?.responses['202'], '202 documented');
  t.ok(doc.paths['/api/v1/events/batch']?.post?.requestBody, 'batch body documented');
  const listParams = (p: string) =>
    (doc.paths[p]?.get?.parameters ?? []).map((q) => `${q.in}:${q.name}`).sort();
  t.same(listParams('/api/v1/events'), [
    'query:cursor',
    'query:eventType',
    'query:from',
    'query:metadata.{path}',
    'query:page',
    'query:q',
    'query:qField',
    'query:sessionId',
    'query:severity',
    'query:size',
    'query:source',
    'query:tag.{key}',
    'query:timeField',
    'query:to',
    'query:userId',
  ]);
  t.ok(doc.paths['/api/v1/events/histogram']?.get?.responses['200'], 'histogram documented');
  t.ok(doc.paths['/api/v1/events/export']?.get?.responses['200'], 'export documented');
  t.same(listParams('/api/v1/events/type/{eventType}'), [
    'path:eventType',
    'query:page',
    'query:size',
  ]);
  t.same(listParams('/api/v1/events/{eventId}'), ['path:eventId']);
});
