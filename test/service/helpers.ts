/**
 * Helpers for the tests against the running service: the metrics snapshot of spec 2.10 as a strict
 * schema (every field name, nothing more), reading it over HTTP, and polling until it shows what a
 * test waits for.
 */
import { Type, type Static, type TProperties, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { TestService } from '../support/service.ts';

/** Instants as the service writes them: UTC, milliseconds, `Z`. */
const INSTANT = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$';

const strict = <P extends TProperties>(properties: P) =>
  Type.Object(properties, { additionalProperties: false });
const Count = Type.Integer({ minimum: 0 });
const Amount = Type.Number({ minimum: 0 });
const Percent = Type.Number({ minimum: 0, maximum: 100 });
const Instant = Type.String({ pattern: INSTANT });
const Counts = Type.Record(Type.String(), Type.Integer({ minimum: 1 }));
const KeyLatency = strict({ p50: Amount, p95: Amount, p99: Amount, avg: Amount });
const Window = strict({ events: Count, avgLatency: Amount, errorRate: Percent });

/** Spec 2.10, field by field; `additionalProperties: false` everywhere a field list is fixed. */
export const SnapshotSchema = strict({
  summary: strict({
    totalEvents: Count,
    eventsPerSecond: Amount,
    avgLatency: Amount,
    errorRate: Percent,
    uniqueUsers: Count,
    uniqueSources: Count,
    uniqueEventTypes: Count,
  }),
  eventsByType: Counts,
  eventsBySource: Counts,
  eventsBySeverity: strict({ INFO: Count, WARNING: Count, ERROR: Count, CRITICAL: Count }),
  latencyMetrics: strict({
    overall: strict({
      p50: Amount,
      p95: Amount,
      p99: Amount,
      avg: Amount,
      min: Amount,
      max: Amount,
      sampleCount: Count,
    }),
    byType: Type.Record(Type.String(), KeyLatency),
    bySource: Type.Record(Type.String(), KeyLatency),
  }),
  errorMetrics: strict({
    totalErrors: Count,
    errorRate: Percent,
    errorsByType: Counts,
    errorsBySource: Counts,
  }),
  throughput: strict({
    current: Amount,
    peak: Count,
    peakTimestamp: Instant,
    avg: Amount,
    trend: Type.Union([
      Type.Literal('increasing'),
      Type.Literal('decreasing'),
      Type.Literal('stable'),
    ]),
  }),
  timeWindows: strict({ last5Minutes: Window, last15Minutes: Window, last1Hour: Window }),
  topUsers: Type.Array(strict({ userId: Type.String(), eventCount: Count, lastSeen: Instant }), {
    maxItems: 10,
  }),
  // Added to spec 2.10 (issue 29): how full each metrics cap is (docs/metrics.md "Caps").
  limits: strict({
    eventTypes: strict({
      cap: Count,
      used: Count,
      watched: Count,
      overflowed: Type.Boolean(),
      fills: Count,
    }),
    sources: strict({
      cap: Count,
      used: Count,
      watched: Count,
      overflowed: Type.Boolean(),
      fills: Count,
    }),
    users: strict({ cap: Count, used: Count, overflowed: Type.Boolean(), fills: Count }),
  }),
  // Added (issue 33): how the actor serving it began, from a checkpoint or rebuilt.
  restoredFrom: Type.Optional(
    strict({
      checkpointAt: Type.Union([Instant, Type.Null()]),
      replayedEvents: Count,
      restoredAt: Instant,
      restoreMs: Count,
      rebuilt: Type.Optional(strict({ reason: Type.String(), rebuiltMinutes: Count })),
    }),
  ),
});

export type Snapshot = Static<typeof SnapshotSchema>;

const snapshotCheck = TypeCompiler.Compile(SnapshotSchema);

/** `text` parsed as a snapshot; throws naming every field that breaks spec 2.10. */
export function parseSnapshot(text: string): Snapshot {
  const value: unknown = JSON.parse(text);
  if (!snapshotCheck.Check(value)) {
    const problems = [...snapshotCheck.Errors(value)].map((e) => `${e.path || '/'}: ${e.message}`);
    throw new Error(`not a spec 2.10 snapshot (${problems.join('; ')}): ${text}`);
  }
  return value;
}

/** Every number anywhere in `value`, with its path. */
export function numbersIn(value: unknown, path = ''): [string, unknown][] {
  if (typeof value === 'number') return [[path, value]];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => numbersIn(inner, `${path}/${key}`));
}

/** GET /api/v1/metrics: 200, JSON, a valid snapshot (else this throws). */
export async function getMetrics(svc: TestService): Promise<Snapshot> {
  const res = await svc.request('/api/v1/metrics');
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /api/v1/metrics: ${res.status} ${text}`);
  const type = res.headers.get('content-type');
  if (type !== 'application/json') throw new Error(`GET /api/v1/metrics: content-type ${type}`);
  return parseSnapshot(text);
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls GET /api/v1/metrics until `ready` holds (the actor republishes its snapshot every
 * METRICS_REFRESH_MS); throws after `timeoutMs` with the last snapshot.
 */
export async function waitForMetrics(
  svc: TestService,
  ready: (snapshot: Snapshot) => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<Snapshot> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const snapshot = await getMetrics(svc);
    if (ready(snapshot)) return snapshot;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(snapshot)}`);
    }
    await sleep(20);
  }
}

/** POST /api/v1/metrics/reset, which must answer 200 with the JSON string of DESIGN 4. */
export async function resetMetrics(svc: TestService): Promise<void> {
  const res = await svc.request('/api/v1/metrics/reset', { method: 'POST' });
  const text = await res.text();
  if (res.status !== 200 || text !== '"Metrics reset successfully"') {
    throw new Error(`POST /api/v1/metrics/reset: ${res.status} ${text}`);
  }
}

/** A JSON POST that must answer `status`; returns the parsed body. */
export async function postJson(
  svc: TestService,
  path: string,
  body: unknown,
  status: number,
): Promise<unknown> {
  const res = await svc.request(path, { json: body });
  const text = await res.text();
  if (res.status !== status) throw new Error(`POST ${path}: ${res.status}, not ${status}: ${text}`);
  return JSON.parse(text) as unknown;
}

/** Checks `value` against a typebox schema, naming the problems. */
export function check<S extends TSchema>(schema: S, value: unknown): Static<S> {
  const compiled = TypeCompiler.Compile(schema);
  if (!compiled.Check(value)) {
    const problems = [...compiled.Errors(value)].map((e) => `${e.path || '/'}: ${e.message}`);
    throw new Error(`unexpected value (${problems.join('; ')}): ${JSON.stringify(value)}`);
  }
  return value;
}
