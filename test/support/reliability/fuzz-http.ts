/**
 * HTTP fuzzing with fast-check: requests for every endpoint of the OpenAPI document, each from its
 * own seed (a failure replays alone); answers checked for 5xx and the JSON error body of each 4xx.
 */
import http from 'node:http';
import fc from 'fast-check';
import { ERROR_STATUS, type ErrorCode } from '../../../src/errors.ts';
import { keyHeaders } from '../keys.ts';

export interface Endpoint {
  /** OpenAPI path, e.g. `/api/v1/rules/{id}`. */
  readonly template: string;
  readonly methods: readonly string[];
  readonly params: readonly string[];
  readonly query: readonly string[];
  /** Methods whose request has a JSON body. */
  readonly bodyMethods: readonly string[];
}

interface OpenApiOperation {
  readonly parameters?: readonly { readonly in: string; readonly name: string }[];
  readonly requestBody?: unknown;
}

/** The endpoints listed by GET /api/v1/openapi.json. */
export async function loadEndpoints(baseUrl: string): Promise<Endpoint[]> {
  const res = await fetch(`${baseUrl}/api/v1/openapi.json`);
  const doc = (await res.json()) as { paths: Record<string, Record<string, OpenApiOperation>> };
  return Object.entries(doc.paths).map(([template, operations]) => {
    const ops = Object.entries(operations);
    const parameters = ops.flatMap(([, op]) => op.parameters ?? []);
    return {
      template,
      methods: ops.map(([method]) => method.toUpperCase()),
      params: [...new Set(parameters.filter((p) => p.in === 'path').map((p) => p.name))],
      query: [...new Set(parameters.filter((p) => p.in === 'query').map((p) => p.name))],
      bodyMethods: ops
        .filter(([, op]) => op.requestBody !== undefined)
        .map(([m]) => m.toUpperCase()),
    };
  });
}

export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  /** `METHOD /openapi/path` it was generated for (the path may no longer match it). */
  readonly target: string;
  readonly contentType: string | null;
  readonly body: Buffer | null;
  /** Which generator made the body, for the coverage table. */
  readonly bodyKind: string;
}

// ---------------------------------------------------------------- values

const HUGE_NUMBERS = [
  '1e400',
  '-1e400',
  '123456789012345678901234567890',
  '-0',
  '0.0000000000000000000000000001',
  '9007199254740993',
  '2147483648',
  '-2147483649',
  '1E+2',
  '4.9e-324',
];

/** JSON texts of values that break assumptions (as raw JSON, so huge numbers survive). */
const hostileJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'null',
    'true',
    'false',
    '0',
    '-1',
    '1.5',
    '""',
    '" "',
    '"\\u0000"',
    '"a\\u0000b"',
    '"\\ud800"',
    '"\\udfff x"',
    '"\\ud83d\\ude00"',
    '"\u202e\u0301\ufeff"',
    '"%00%ff"',
    '"\' OR 1=1 --"',
    '"${jndi:ldap://127.0.0.1/x}"',
    '"<script>alert(1)</script>"',
    '"2026-13-45T99:99:99Z"',
    '"2026-11-22T19:30:00"',
    '"2026-11-22T19:30:00.123+25:00"',
    '"+275760-09-13T00:00:00.001Z"',
    '[]',
    '{}',
    '[[[[[[[[[[]]]]]]]]]]',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"x":1}}}',
    '"INFO"',
    '"info"',
    '"THRESHOLD"',
  ),
  fc.constantFrom(...HUGE_NUMBERS),
  fc.integer({ min: 250, max: 70_000 }).map((n) => JSON.stringify('x'.repeat(n))),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => JSON.stringify(s)),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
);

const deepNesting: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 20, max: 120_000 }), fc.boolean())
  .map(([depth, arrays]) =>
    arrays
      ? `${'['.repeat(depth)}${']'.repeat(depth)}`
      : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
  );

const name = fc.oneof(
  fc.constantFrom('checkout.failed', 'page_view', 'login', 'api_call'),
  fc.string({ minLength: 1, maxLength: 20 }),
);

const validEvent = fc.record(
  {
    eventType: name,
    source: name,
    timestamp: fc
      .date({ min: new Date('2000-01-01'), max: new Date('2040-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString()),
    userId: fc.option(fc.string({ maxLength: 20 }), { nil: null }),
    sessionId: fc.option(fc.string({ maxLength: 20 }), { nil: null }),
    severity: fc.constantFrom('INFO', 'WARNING', 'ERROR', 'CRITICAL'),
    tags: fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }), { maxKeys: 4 }),
    metadata: fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), {
      maxKeys: 4,
    }),
  },
  { requiredKeys: ['eventType', 'source'] },
);

const leaf = fc.record({
  metric: fc.constantFrom(
    'totalEvents',
    'errorRate',
    'eventsPerSecond',
    'errRate',
    'eventsByType[login]',
    'latency.p99',
    '',
  ),
  operator: fc.constantFrom('GREATER_THAN', 'LESS_THAN', 'EQUALS', 'GREATER', '>'),
  threshold: fc.oneof(fc.double({ noNaN: true }), fc.integer()),
  windowMinutes: fc.oneof(fc.integer({ min: -5, max: 2000 }), fc.constant(5)),
});

const ruleConfig = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.record({
      logicalOperator: fc.constantFrom('AND', 'OR', 'NOT', 'XOR'),
      conditions: fc.array(tie('node'), { maxLength: 3 }),
    }),
  ),
})).node;

const validRule = fc.record(
  {
    name: fc.string({ minLength: 1, maxLength: 40 }),
    description: fc.option(fc.string({ maxLength: 40 }), { nil: null }),
    ruleType: fc.constantFrom('THRESHOLD', 'RATE_CHANGE', 'ANOMALY', 'PATTERN'),
    ruleConfig,
    severity: fc.constantFrom('LOW', 'MEDIUM', 'HIGH', 'CRITICAL'),
    priority: fc.integer(),
    // Loopback only: a triggered rule must never reach another host (NOTIFY_ALLOWED_HOSTS too).
    notificationChannels: fc.subarray(['email', 'slack', 'webhook:nowhere']),
    notificationConfig: fc.constant({ slack: { channel: '#fuzz' } }),
    suppressionWindowMinutes: fc.integer({ min: 0, max: 100 }),
    maxAlertsPerHour: fc.integer({ min: 1, max: 100 }),
  },
  { requiredKeys: ['name', 'ruleType', 'ruleConfig', 'severity'] },
);

/** A JSON object's text with one field replaced, removed or added. */
const mutate = (
  base: fc.Arbitrary<Record<string, unknown>>,
  fields: readonly string[],
): fc.Arbitrary<string> =>
  fc
    .tuple(
      base,
      fc.constantFrom(...fields, 'unknownField', 'metadata', '__proto__'),
      fc.constantFrom('replace', 'remove', 'nest'),
      hostileJson,
      deepNesting,
    )
    .map(([object, field, how, value, deep]) => {
      const entries = Object.entries(object)
        .filter(([k]) => !(how === 'remove' && k === field))
        .map(([k, v]) => (k === field ? null : `${JSON.stringify(k)}:${JSON.stringify(v)}`))
        .filter((e): e is string => e !== null);
      if (how === 'replace') entries.push(`${JSON.stringify(field)}:${value}`);
      if (how === 'nest') entries.push(`${JSON.stringify(field)}:${deep}`);
      return `{${entries.join(',')}}`;
    });

const EVENT_FIELDS = [
  'eventType',
  'source',
  'timestamp',
  'userId',
  'sessionId',
  'severity',
  'tags',
  'metadata',
];
const RULE_FIELDS = [
  'name',
  'description',
  'ruleType',
  'ruleConfig',
  'severity',
  'priority',
  'notificationChannels',
  'notificationConfig',
  'suppressionWindowMinutes',
  'maxAlertsPerHour',
  'createdBy',
];

/** Raw bytes that are not what they claim: truncated, invalid UTF-8, garbage around JSON. */
const corrupt = (text: fc.Arbitrary<string>): fc.Arbitrary<Buffer> =>
  fc
    .tuple(
      text,
      fc.constantFrom('truncate', 'bad-utf8', 'bom', 'trailing', 'random-bytes', 'overlong'),
      fc.nat(),
      fc.uint8Array({ minLength: 1, maxLength: 64 }),
    )
    .map(([t, how, n, bytes]) => {
      const b = Buffer.from(t, 'utf8');
      switch (how) {
        case 'truncate':
          return b.subarray(0, b.length === 0 ? 0 : n % b.length);
        case 'bad-utf8': {
          const at = b.length === 0 ? 0 : n % b.length;
          return Buffer.concat([
            b.subarray(0, at),
            Buffer.from([0xff, 0xfe, 0xc3]),
            b.subarray(at),
          ]);
        }
        case 'bom':
          return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]);
        case 'trailing':
          return Buffer.concat([b, Buffer.from('}]garbage')]);
        case 'overlong':
          // "/" as an overlong two-byte sequence, inside a string.
          return Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]);
        default:
          return Buffer.from(bytes);
      }
    });

/** Bodies with the generator that made them. */
const bodies: fc.Arbitrary<{ kind: string; body: Buffer }> = fc.oneof(
  validEvent.map((e) => ({ kind: 'valid event', body: Buffer.from(JSON.stringify(e)) })),
  mutate(validEvent, EVENT_FIELDS).map((t) => ({ kind: 'mutated event', body: Buffer.from(t) })),
  fc
    .array(
      fc.oneof(
        validEvent.map((e) => JSON.stringify(e)),
        mutate(validEvent, EVENT_FIELDS),
      ),
      { maxLength: 30 },
    )
    .chain((items) =>
      fc
        .constantFrom(
          `[${items.join(',')}]`,
          `{"events":[${items.join(',')}]}`,
          `{"events":[${items.join(',')}],"x":1}`,
        )
        .map((t) => ({
          kind: 'batch',
          body: Buffer.from(t),
        })),
    ),
  fc.integer({ min: 1001, max: 1300 }).map((n) => ({
    kind: 'batch over the limit',
    body: Buffer.from(
      JSON.stringify(Array.from({ length: n }, (_, i) => ({ eventType: 'e', source: `s${i}` }))),
    ),
  })),
  validRule.map((r) => ({ kind: 'valid rule', body: Buffer.from(JSON.stringify(r)) })),
  mutate(validRule, RULE_FIELDS).map((t) => ({ kind: 'mutated rule', body: Buffer.from(t) })),
  fc
    .jsonValue({ maxDepth: 4 })
    .map((v) => ({ kind: 'random JSON', body: Buffer.from(JSON.stringify(v) ?? 'null') })),
  hostileJson.map((t) => ({ kind: 'hostile value', body: Buffer.from(t) })),
  deepNesting.map((t) => ({ kind: 'deep nesting', body: Buffer.from(t) })),
  corrupt(
    fc.oneof(
      validEvent.map((e) => JSON.stringify(e)),
      validRule.map((r) => JSON.stringify(r)),
    ),
  ).map((b) => ({ kind: 'corrupt bytes', body: b })),
  fc
    .constantFrom('', ' ', '\n', 'null', '"string"', '[]', '{}')
    .map((t) => ({ kind: 'empty or scalar', body: Buffer.from(t) })),
  fc.integer({ min: 1024 * 1024 - 64, max: 1024 * 1024 + 4096 }).map((n) => ({
    kind: 'around MAX_BODY_BYTES',
    body: Buffer.from(
      `{"eventType":"big","source":"s","metadata":{"pad":"${'p'.repeat(Math.max(0, n - 60))}"}}`,
    ),
  })),
);

// ---------------------------------------------------------------- paths and queries

const segmentValues: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'evt_1',
    'evt_0',
    'evt_-1',
    'evt_99999999999999999999',
    'evt_1e3',
    'evt_',
    'evt_01',
    '1',
    '2',
    '3',
    '0',
    '-1',
    '1.5',
    '2147483647',
    '2147483648',
    '99999999999999999999999',
    '1e3',
    '0x10',
    '+1',
    'THRESHOLD',
    'threshold',
    'ACTIVE',
    'PAUSED',
    'ARCHIVED',
    'active',
    'checkout.failed',
    'null',
    'undefined',
    '..',
    '.',
  ),
  fc.constantFrom(
    '%',
    '%zz',
    '%ff',
    '%c0%af',
    '%00',
    '%2F',
    '%e2%82',
    '%F0%9F%98%80',
    '%20',
    '%25',
  ),
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
  fc.integer({ min: 300, max: 20_000 }).map((n) => 'a'.repeat(n)),
);

const queryValues: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '0',
    '1',
    '20',
    '100',
    '101',
    '-1',
    '1.5',
    '1e2',
    '',
    'abc',
    '99999999999999999999',
    '2147483648',
    'NaN',
    'Infinity',
    '%201',
    '0x1',
    'true',
    'INFO',
    'CRITICAL',
    '2026-11-22T19:30:00Z',
    'yesterday',
  ),
  fc.constantFrom('%', '%zz', '%ff', '%00', '%', '%25%'),
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
  fc.integer({ min: 300, max: 8000 }).map((n) => '9'.repeat(n)),
);

const queryString = (names: readonly string[]): fc.Arbitrary<string> =>
  fc
    .array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom(...names, 'page', 'size', 'limit', 'q'),
          fc.string({ maxLength: 8 }).map(encodeURIComponent),
        ),
        queryValues,
        fc.boolean(),
      ),
      { maxLength: 5 },
    )
    .map((pairs) =>
      pairs.length === 0
        ? ''
        : `?${pairs.map(([k, v, bare]) => (bare && v === '' ? k : `${k}=${v}`)).join('&')}`,
    );

const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/vnd.vigil+json',
  'application/json;',
  'application/jsonx',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '*/*',
  '',
  'application/json, text/plain',
];

/** `arbitrary`'s value with probability `p`, else null. */
const sometimes = <T>(p: number, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
  fc.oneof(
    { arbitrary: fc.constant(null), weight: Math.round(100 * (1 - p)) },
    { arbitrary, weight: Math.round(100 * p) },
  );

const WRONG_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE'];

/** A request for one endpoint (or, now and then, for a path the service does not have). */
export function requestArbitrary(endpoints: readonly Endpoint[]): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      endpoint: fc.constantFrom(...endpoints),
      wrongMethod: sometimes(0.15, fc.constantFrom(...WRONG_METHODS)),
      pick: fc.nat(),
      segments: fc.array(segmentValues, { minLength: 3, maxLength: 3 }),
      unknownPath: sometimes(
        0.05,
        fc.constantFrom(
          '/api/v1/nope',
          '/api/v1/events/x/y/z',
          '/',
          '/api/v2/events',
          '/api/v1/rules/1/alerts/extra',
          '/api/v1/events//',
        ),
      ),
      query: queryString(['page', 'size', 'limit', 'q', 'ruleId', 'severity', 'since']),
      contentType: sometimes(0.9, fc.constantFrom(...CONTENT_TYPES)),
      body: bodies,
      bodyOnOther: fc.boolean(),
    })
    .map((r): FuzzRequest => {
      const method =
        r.wrongMethod ?? (r.endpoint.methods[r.pick % r.endpoint.methods.length] as string);
      let i = 0;
      const filled = r.endpoint.template.replace(/\{[^}]+\}/g, () => r.segments[i++] ?? '1');
      const path = (r.unknownPath ?? filled) + r.query;
      const wantsBody = r.endpoint.bodyMethods.includes(method);
      const sendBody = method !== 'HEAD' && (wantsBody || r.bodyOnOther);
      return {
        method,
        path,
        target:
          r.unknownPath !== null
            ? `${method} (unknown path)`
            : r.endpoint.methods.includes(method)
              ? `${method} ${r.endpoint.template}`
              : `${method} (a known path without it)`,
        contentType: r.contentType ?? (sendBody ? 'application/json' : null),
        body: sendBody ? r.body.body : null,
        bodyKind: sendBody ? r.body.kind : 'no body',
      };
    });
}

/** The request made from `seed` alone (a failing seed replays it exactly). */
export const requestFromSeed = (
  arbitrary: fc.Arbitrary<FuzzRequest>,
  seed: number,
): FuzzRequest => {
  const [request] = fc.sample(arbitrary, { seed, numRuns: 1 });
  if (request === undefined) throw new Error('no sample');
  return request;
};

// ---------------------------------------------------------------- sending and checking

export interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  readonly ms: number;
}

export type Sent =
  | { readonly ok: true; readonly answer: Answer }
  | { readonly ok: false; readonly error: string; readonly ms: number };

export function send(
  agent: http.Agent,
  baseUrl: string,
  request: FuzzRequest,
  timeoutMs: number,
): Promise<Sent> {
  const url = new URL(baseUrl);
  const t0 = performance.now();
  return new Promise((resolve) => {
    let done = false;
    const finish = (sent: Sent): void => {
      if (done) return;
      done = true;
      resolve(sent);
    };
    const headers: Record<string, string | number> = {};
    Object.assign(headers, keyHeaders());
    if (request.contentType !== null) headers['content-type'] = request.contentType;
    if (request.body !== null) headers['content-length'] = request.body.length;
    let req: http.ClientRequest;
    try {
      req = http.request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method: request.method,
          path: request.path,
          headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            finish({
              ok: true,
              answer: {
                status: res.statusCode ?? 0,
                headers: res.headers,
                body: Buffer.concat(chunks).toString('utf8'),
                ms: performance.now() - t0,
              },
            }),
          );
          res.on('error', (e: NodeJS.ErrnoException) =>
            finish({ ok: false, error: e.code ?? e.message, ms: performance.now() - t0 }),
          );
        },
      );
    } catch (error) {
      finish({ ok: false, error: `client refused to send: ${(error as Error).message}`, ms: 0 });
      return;
    }
    req.setTimeout(timeoutMs, () => {
      finish({ ok: false, error: 'timeout', ms: performance.now() - t0 });
      req.destroy();
    });
    req.on('error', (e: NodeJS.ErrnoException) =>
      finish({ ok: false, error: e.code ?? e.message, ms: performance.now() - t0 }),
    );
    req.end(request.body ?? undefined);
  });
}

const CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/**
 * OTLP/HTTP's own 400 (POST /v1/logs): a google.rpc.Status, `{ code, message }` with a numeric
 * code, in the request's encoding, as the OTLP specification requires; its other refusals (401,
 * 413, 415, 429, 503) come before its handler and are Vigil's own.
 */
function otlpStatusProblems(answer: Answer): string[] {
  let body: { code?: unknown; message?: unknown } | null;
  try {
    body = JSON.parse(answer.body) as { code?: unknown; message?: unknown } | null;
  } catch {
    return [`OTLP 400 body is not JSON: ${answer.body.slice(0, 80)}`];
  }
  return typeof body?.code === 'number' && typeof body.message === 'string' && body.message !== ''
    ? []
    : [`OTLP 400 body is not a google.rpc.Status: ${answer.body.slice(0, 80)}`];
}

/** What is wrong with an answer: a 5xx, or a 4xx without `{ status: 'error', code, message }`. */
export function problemsOf(method: string, answer: Answer, path = ''): string[] {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`answered ${answer.status}`);
  if (answer.status < 400 || method === 'HEAD') return problems;
  // POST /v1/logs may answer OTLP's google.rpc.Status instead of Vigil's error body.
  if (
    answer.status === 400 &&
    path.startsWith('/v1/logs') &&
    otlpStatusProblems(answer).length === 0
  )
    return problems;
  const type = answer.headers['content-type'] ?? '';
  if (!type.startsWith('application/json'))
    problems.push(`${answer.status} with content-type '${type}'`);
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    problems.push(`${answer.status} body is not JSON: ${answer.body.slice(0, 80)}`);
    return problems;
  }
  const b = body as {
    status?: unknown;
    code?: unknown;
    message?: unknown;
    errors?: unknown;
  } | null;
  if (b?.status !== 'error')
    problems.push(`${answer.status} body status is ${JSON.stringify(b?.status)}`);
  if (typeof b?.code !== 'string' || !CODES.includes(b.code as ErrorCode))
    problems.push(`${answer.status} body code is ${JSON.stringify(b?.code)}`);
  else if (ERROR_STATUS[b.code as ErrorCode] !== answer.status)
    problems.push(`code ${b.code} with status ${answer.status}`);
  if (typeof b?.message !== 'string' || b.message === '')
    problems.push(`${answer.status} body has no message`);
  if (
    b?.errors !== undefined &&
    (typeof b.errors !== 'object' ||
      b.errors === null ||
      Object.values(b.errors).some((v) => typeof v !== 'string'))
  ) {
    problems.push(`${answer.status} errors is not an object of strings`);
  }
  if (answer.status === 405 && answer.headers.allow === undefined)
    problems.push('405 without Allow');
  return problems;
}

export interface FuzzFailure {
  readonly seed: number;
  readonly request: string;
  readonly problems: readonly string[];
}

export interface FuzzStats {
  readonly requests: number;
  readonly byTarget: ReadonlyMap<string, Map<string, number>>;
  readonly byBodyKind: ReadonlyMap<string, number>;
  readonly statuses: ReadonlyMap<number, number>;
  readonly failures: readonly FuzzFailure[];
  readonly fiveXx: number;
  readonly badErrorBodies: number;
  readonly noAnswer: number;
  readonly maxMs: number;
}

export const describeRequest = (r: FuzzRequest): string => {
  const body =
    r.body === null
      ? ''
      : ` body(${r.body.length} B, ${r.bodyKind}): ${r.body.subarray(0, 160).toString('utf8')}`;
  return `${r.method} ${r.path.slice(0, 200)} [content-type: ${r.contentType ?? 'none'}]${body}`;
};

const EARLY_REFUSAL_BYTES = 256 * 1024;

const statusClass = (status: number): string => `${Math.floor(status / 100)}xx`;

/**
 * Sends the request of each seed (`concurrency` at a time), checking every answer. A request with
 * no answer in `timeoutMs` is a failure (a hang); so is a closed connection without an answer,
 * except for large bodies, which the service may refuse (413, 415) before reading them.
 */
export async function runHttpFuzz(options: {
  readonly baseUrl: string;
  readonly endpoints: readonly Endpoint[];
  readonly seeds: readonly number[];
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly onProgress?: (done: number) => void;
}): Promise<FuzzStats> {
  const arbitrary = requestArbitrary(options.endpoints);
  const byTarget = new Map<string, Map<string, number>>();
  const byBodyKind = new Map<string, number>();
  const statuses = new Map<number, number>();
  const failures: FuzzFailure[] = [];
  let fiveXx = 0;
  let badErrorBodies = 0;
  let noAnswer = 0;
  let maxMs = 0;
  let next = 0;
  let done = 0;
  const bump = (map: Map<string, number>, key: string): void => {
    map.set(key, (map.get(key) ?? 0) + 1);
  };
  const worker = async (): Promise<void> => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    while (next < options.seeds.length) {
      const seed = options.seeds[next++] as number;
      const request = requestFromSeed(arbitrary, seed);
      const sent = await send(agent, options.baseUrl, request, options.timeoutMs);
      const target = byTarget.get(request.target) ?? new Map<string, number>();
      byTarget.set(request.target, target);
      bump(byBodyKind, request.bodyKind);
      if (sent.ok) {
        maxMs = Math.max(maxMs, sent.answer.ms);
        statuses.set(sent.answer.status, (statuses.get(sent.answer.status) ?? 0) + 1);
        bump(target, statusClass(sent.answer.status));
        const problems = problemsOf(request.method, sent.answer, request.path);
        if (sent.answer.status >= 500) fiveXx++;
        else if (problems.length > 0) badErrorBodies++;
        if (problems.length > 0)
          failures.push({ seed, request: describeRequest(request), problems });
      } else {
        maxMs = Math.max(maxMs, sent.ms);
        // A body the socket buffers cannot hold may still be in writing when the service has
        // refused it (413/415 answer, then close): the client then sees EPIPE or a reset.
        const refusedEarly =
          (request.body?.length ?? 0) > EARLY_REFUSAL_BYTES &&
          ['EPIPE', 'ECONNRESET'].includes(sent.error);
        bump(target, refusedEarly ? 'closed while sending a large body' : 'no answer');
        if (!refusedEarly) {
          noAnswer++;
          failures.push({
            seed,
            request: describeRequest(request),
            problems: [`no answer: ${sent.error}`],
          });
        }
      }
      // Not inside `?.()`: its arguments are not evaluated when there is no callback.
      done++;
      options.onProgress?.(done);
    }
    agent.destroy();
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return {
    requests: done,
    byTarget,
    byBodyKind,
    statuses,
    failures,
    fiveXx,
    badErrorBodies,
    noAnswer,
    maxMs,
  };
}
