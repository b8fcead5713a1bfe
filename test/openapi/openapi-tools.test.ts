// The OpenAPI document as third-party tools read it, fetched from a running service: Redocly CLI's
// lint (0 errors, 0 warnings under redocly.yaml), swagger-cli's validate, an OpenAPI 3.1 schema
// validator, the YAML twin, and openapi-typescript's generated types, against which a client
// (test/fixtures/openapi-client) must type-check with tsc and then work: read the metrics, create
// a rule, page events.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import t from 'tap';
import { parse } from 'yaml';
import { TEST_ADMIN_KEY } from '../support/keys.ts';
import { startTestService } from '../support/service.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const bin = (name: string): string => path.join(ROOT, 'node_modules', '.bin', name);
// Inside the package, so the copied client resolves openapi-fetch from its node_modules.
const SCRATCH = path.join(ROOT, '.scratch', `openapi-client-${process.pid}`);

// Three tools in child processes on a shared machine: more than the default 180 s per file.
t.setTimeout(480_000);
const svc = await startTestService(t);
await mkdir(SCRATCH, { recursive: true });
t.teardown(() => rm(SCRATCH, { recursive: true, force: true }));

const jsonRes = await fetch(`${svc.base}/api/v1/openapi.json`);
const documentText = await jsonRes.text();
const document = JSON.parse(documentText) as Record<string, unknown>;
const documentFile = path.join(SCRATCH, 'openapi.json');
await writeFile(documentFile, documentText);

interface LintReport {
  readonly totals: { readonly errors: number; readonly warnings: number };
  readonly problems: readonly { ruleId: string; severity: string; message: string }[];
}

void t.test('Redocly CLI lints the document: no errors, no warnings', async (t) => {
  // Exit status 1 on errors: the report is read either way.
  const out = await run(
    bin('redocly'),
    ['lint', documentFile, '--format=json', '--config', path.join(ROOT, 'redocly.yaml')],
    { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
  const report = JSON.parse(out.stdout) as LintReport;
  const problems = report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message}`);
  t.same(problems, [], 'no problems');
  t.equal(report.totals.errors, 0);
  t.equal(report.totals.warnings, 0);
});

void t.test(
  'swagger-cli validates the document (swagger-parser: refs resolved, 3.1 schema)',
  async (t) => {
    const out = await run(bin('swagger-cli'), ['validate', documentFile], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout: string; stderr: string }) => ({
      stdout: error.stdout,
      stderr: error.stderr,
    }));
    t.equal(out.stderr.trim(), '', 'no errors');
    t.match(out.stdout, /is valid/);
  },
);

void t.test('the document is valid OpenAPI 3.1 (its JSON Schema)', async (t) => {
  const validator = new Validator();
  const result = await validator.validate(document);
  t.same(result.errors ?? [], [], 'no schema errors');
  t.equal(result.valid, true);
  t.equal(validator.version, '3.1');
});

void t.test('the YAML is the same document', async (t) => {
  const res = await fetch(`${svc.base}/api/v1/openapi.yaml`);
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'application/yaml');
  t.same(parse(await res.text()), document);
});

/**
 * Where `keyword` is used as a schema keyword: any object key of that name except the property
 * names of a `properties` map (OTLP's response has a real field called `errorMessage`).
 */
function keywordsOutsideProperties(value: unknown, keyword: string, at = '#'): string[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => [
    ...(key === keyword && !at.endsWith('/properties') ? [`${at}/${key}`] : []),
    ...keywordsOutsideProperties(inner, keyword, `${at}/${key}`),
  ]);
}

void t.test('shared schemas are components; the rest is plain JSON Schema', async (t) => {
  const schemas = (document.components as { schemas: Record<string, unknown> }).schemas;
  for (const name of ['Error', 'MetricsSnapshot', 'RuleTestResult', 'Alert', 'BacktestResult'])
    t.ok(schemas[name], `components.schemas.${name}`);
  t.notMatch(documentText, /"\$id"/, 'no $id left');
  t.same(keywordsOutsideProperties(document, 'errorMessage'), [], 'no typebox-only keyword');
  // The recursive explanation: one component, referenced by itself and by the rest.
  t.equal(documentText.match(/"\$ref":"ConditionExplanation"/g), null);
  t.ok(schemas.ConditionExplanation);
  const refs = [...documentText.matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1] as string);
  for (const ref of new Set(refs)) {
    t.ok(ref.startsWith('#/components/schemas/'), `${ref} is local`);
    t.ok(schemas[ref.slice('#/components/schemas/'.length)], `${ref} is defined`);
  }
});

interface Operation {
  readonly operationId?: string;
  readonly tags?: readonly string[];
  readonly security?: readonly unknown[];
  readonly parameters?: readonly unknown[];
  readonly requestBody?: unknown;
  readonly responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}

void t.test(
  'every operation: an operationId, a tag and its 4xx answers with the error schema',
  async (t) => {
    const paths = document.paths as Record<string, Record<string, Operation>>;
    const ids = new Set<string>();
    for (const [p, ops] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const name = `${method.toUpperCase()} ${p}`;
        t.match(op.operationId, /^[a-z][A-Za-z0-9]+$/, `${name} operationId`);
        t.notOk(ids.has(op.operationId as string), `${name} operationId is unique`);
        ids.add(op.operationId as string);
        t.equal(op.tags?.length, 1, `${name} tag`);
        const needsKey = (op.security ?? []).length > 0;
        const takesInput = op.parameters !== undefined || op.requestBody !== undefined;
        const expected = [
          ...(needsKey ? ['401', '403', '429'] : []),
          ...(takesInput ? ['400'] : []),
        ];
        // OTLP/HTTP answers its own errors (google.rpc.Status), as its specification says.
        const ownErrors = p.startsWith('/api/');
        for (const status of expected) {
          if (!ownErrors && status === '400') {
            t.ok(op.responses[status]?.content?.['application/json']?.schema, `${name} ${status}`);
            continue;
          }
          t.same(
            op.responses[status]?.content?.['application/json']?.schema,
            { $ref: '#/components/schemas/Error' },
            `${name} ${status}`,
          );
        }
      }
    }
    t.ok(document.servers, 'servers');
    t.match(document.info, { license: { name: String } }, 'info.license');
  },
);

/** The fixture's entry point (its own types are generated, so not imported here). */
type Exercise = (
  baseUrl: string,
  apiKey: string,
  events: number,
) => Promise<{
  totalEvents: number;
  ruleId: number;
  ruleType: string;
  eventIds: readonly string[];
  pages: number;
}>;

void t.test('a client on openapi-typescript types type-checks and works', async (t) => {
  const generated = path.join(SCRATCH, 'vigil-api.ts');
  await run(bin('openapi-typescript'), [documentFile, '-o', generated], { cwd: ROOT });
  const client = path.join(SCRATCH, 'client.ts');
  await copyFile(path.join(ROOT, 'test/fixtures/openapi-client/client.ts'), client);
  await writeFile(
    path.join(SCRATCH, 'tsconfig.json'),
    JSON.stringify({
      extends: path.join(ROOT, 'tsconfig.json'),
      include: ['*.ts'],
      exclude: [],
    }),
  );
  const tsc = await run(bin('tsc'), ['-p', SCRATCH], { cwd: ROOT }).then(
    () => ({ code: 0, stdout: '' }),
    (error: { code: number; stdout: string }) => error,
  );
  t.equal(tsc.code, 0, `tsc: ${tsc.stdout}`);

  const { exercise } = (await import(client)) as { exercise: Exercise };
  const done = await exercise(svc.base, TEST_ADMIN_KEY, 5);
  t.equal(done.ruleType, 'THRESHOLD');
  t.ok(Number.isInteger(done.ruleId) && done.ruleId > 0, 'the created rule has an id');
  const rule = await svc.request(`/api/v1/rules/${done.ruleId}`);
  t.equal(rule.status, 200, 'the rule it created is stored');
  t.equal(done.eventIds.length, 5, 'every event, paged 2 at a time');
  t.equal(done.pages, 3);
  t.equal(new Set(done.eventIds).size, 5, 'no event twice');
  t.ok(done.totalEvents >= 0, 'summary.totalEvents read as a number');
});
