// The route table and the keys: every route declares a scope, every route that is not public
// answers 401 (with the challenge and the JSON error) to a request without a key, and a key of
// the wrong scope gets 403 on a sample of each scope. Walked from the OpenAPI document, which is
// generated from the route table, so a new route is walked without changing this test.
import t from 'tap';
import { expectError } from '../support/events.ts';
import { keyHeaders } from '../support/keys.ts';
import { startTestService, type TestService } from '../support/service.ts';

interface Operation {
  readonly 'x-vigil-scope'?: string;
  readonly security?: unknown[];
}
type OpenApi = { paths: Record<string, Record<string, Operation>> };

const svc = await startTestService(t);
const doc = (await (await svc.request('/api/v1/openapi.json')).json()) as OpenApi;
const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, op]) => ({
    method: method.toUpperCase(),
    // Any value will do for a path parameter: the key is checked before it is read.
    path: path.replace(/\{\w+\}/g, '1'),
    op,
  })),
);
const PUBLIC = [
  '/api/v1/events/health',
  '/api/v1/events/test',
  '/api/v1/openapi.json',
  '/api/v1/openapi.yaml',
];

/** A request with no key at all (the test helper adds the admin key unless told otherwise). */
const anonymous = (method: string, path: string) =>
  svc.request(path, {
    method,
    headers: { authorization: '', 'content-type': 'application/json' },
    ...(method === 'POST' || method === 'PUT' ? { body: '{}' } : {}),
  });

t.test('every route declares a scope, shown in the OpenAPI document', async (t) => {
  t.ok(operations.length >= 25, `${operations.length} routes`);
  for (const { method, path, op } of operations) {
    t.ok(
      ['public', 'ingest', 'read', 'admin'].includes(op['x-vigil-scope'] ?? ''),
      `${method} ${path} declares its scope`,
    );
    t.equal(op.security?.length === 0, op['x-vigil-scope'] === 'public', `${method} ${path}`);
  }
  const publicPaths = operations.filter((o) => o.op['x-vigil-scope'] === 'public');
  t.same(publicPaths.map((o) => o.path).sort(), [...PUBLIC].sort(), 'exactly these are public');
});

t.test('every route that is not public answers 401 without a key', async (t) => {
  for (const { method, path, op } of operations) {
    const res = await anonymous(method, path);
    if (op['x-vigil-scope'] === 'public') {
      t.ok(res.status < 400 || res.status === 503, `${method} ${path} answers without a key`);
      await res.body?.cancel();
      continue;
    }
    t.equal(res.headers.get('www-authenticate'), 'Bearer realm="vigil"', `${method} ${path}`);
    await expectError(t, res, 401, 'UNAUTHORIZED');
  }
});

t.test('a cross-site form POST without a key is refused before it does anything', async (t) => {
  const res = await svc.request('/api/v1/metrics/reset', {
    method: 'POST',
    headers: { authorization: '', origin: 'https://evil.example', 'content-type': 'text/plain' },
  });
  await expectError(t, res, 401, 'UNAUTHORIZED');
});

async function keyOf(svc: TestService, scope: string): Promise<string> {
  const res = await svc.request('/api/v1/keys', { json: { name: `${scope} key`, scope } });
  t.equal(res.status, 201);
  return ((await res.json()) as { key: string }).key;
}

t.test('a key without the scope gets 403; admin includes the others', async (t) => {
  const ingest = await keyOf(svc, 'ingest');
  const read = await keyOf(svc, 'read');
  const call = (key: string, method: string, path: string, json?: unknown) =>
    svc.request(path, {
      method,
      headers: { ...keyHeaders(key), 'content-type': 'application/json' },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
  const event = { eventType: 'scoped', source: 'test' };
  const forbidden: [string, string, string, unknown?][] = [
    [ingest, 'GET', '/api/v1/events'],
    [ingest, 'GET', '/api/v1/metrics'],
    [ingest, 'GET', '/api/v1/keys'],
    [read, 'POST', '/api/v1/events', event],
    [read, 'POST', '/api/v1/events/batch', [event]],
    [read, 'POST', '/api/v1/rules', {}],
    [read, 'POST', '/api/v1/metrics/reset'],
    [read, 'POST', '/api/v1/keys', { name: 'x', scope: 'admin' }],
    [read, 'DELETE', '/api/v1/rules/1'],
  ];
  for (const [key, method, path, body] of forbidden) {
    const res = await call(key, method, path, body);
    t.comment(`${key.slice(0, 10)} ${method} ${path}`);
    await expectError(t, res, 403, 'FORBIDDEN');
  }
  t.equal((await call(ingest, 'POST', '/api/v1/events', event)).status, 202, 'ingest ingests');
  t.equal((await call(read, 'GET', '/api/v1/metrics')).status, 200, 'read reads');
  const test = await call(read, 'POST', '/api/v1/rules/test', {
    name: 'tried',
    ruleType: 'THRESHOLD',
    severity: 'LOW',
    ruleConfig: { metric: 'errorRate', operator: '>', threshold: 0.5 },
  });
  t.equal(test.status, 200, 'read may test a rule, which changes nothing');
  t.equal((await svc.request('/api/v1/events', { json: event })).status, 202, 'admin ingests');
  t.equal((await svc.request('/api/v1/events')).status, 200, 'admin reads');
});

t.test('either header carries the key; a malformed Authorization is 401', async (t) => {
  const read = await keyOf(svc, 'read');
  const viaHeader = await svc.request('/api/v1/metrics', { headers: { 'x-api-key': read } });
  t.equal(viaHeader.status, 200, 'X-API-Key');
  await viaHeader.body?.cancel();
  const basic = await svc.request('/api/v1/metrics', { headers: { authorization: 'Basic abc' } });
  await expectError(t, basic, 401, 'UNAUTHORIZED');
});

t.test('API answers are never sniffed nor cached', async (t) => {
  for (const path of ['/api/v1/metrics', '/api/v1/events/test', '/api/v1/nothing-here']) {
    const res = await svc.request(path);
    t.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
    t.equal(res.headers.get('cache-control'), 'no-store', path);
    await res.body?.cancel();
  }
});
