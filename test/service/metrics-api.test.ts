// GET /api/v1/metrics and POST /api/v1/metrics/reset against the real service (spec 2.10, 4.4;
// DESIGN 4): events stored through the API are counted exactly once, every aggregate matches what
// PostgreSQL holds, rejected or failed events never count, and a reset zeroes everything at once.
import t from 'tap';
import { countActorSnapshots } from '../support/actor-snapshots.ts';
import { readAck, readBatch, type BatchResult } from '../support/events.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { getMetrics, numbersIn, resetMetrics, waitForMetrics, type Snapshot } from './helpers.ts';

const REFRESH_MS = 50;
const snapshots = countActorSnapshots();
const svc: TestService = await startTestService(t, { METRICS_REFRESH_MS: String(REFRESH_MS) });

type Severity = 'INFO' | 'WARNING' | 'ERROR' | 'CRITICAL';

/** One stored event as the metrics see it, read back from PostgreSQL. */
interface StoredRow {
  readonly id: number;
  readonly eventType: string;
  readonly source: string;
  readonly userId: string | null;
  readonly severity: Severity;
  readonly latencyMs: number;
  readonly receivedMs: number;
}

async function storedRows(ids: readonly number[]): Promise<StoredRow[]> {
  const rows = await svc.db.sql<
    {
      id: string;
      event_type: string;
      source: string;
      user_id: string | null;
      severity: Severity;
      processing_latency_ms: number;
      received_ms: number;
    }[]
  >`
    SELECT id, event_type, source, user_id, severity, processing_latency_ms,
           (extract(epoch FROM received_at) * 1000)::float8 AS received_ms
    FROM events WHERE id = ANY(${ids.map(String)}::bigint[]) ORDER BY id`;
  if (rows.length !== ids.length) throw new Error(`${ids.length} ids, ${rows.length} rows`);
  return rows.map((r) => ({
    id: Number(r.id),
    eventType: r.event_type,
    source: r.source,
    userId: r.user_id,
    severity: r.severity,
    latencyMs: r.processing_latency_ms,
    receivedMs: r.received_ms,
  }));
}

const idOf = (eventId: string): number => Number(eventId.replace(/^evt_/, ''));

const nearestRank = (sorted: readonly number[], p: number): number =>
  sorted[Math.max(1, Math.ceil((p * sorted.length) / 100)) - 1] ?? 0;

function latencyOf(values: readonly number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const sum = values.reduce((a, b) => a + b, 0);
  return {
    p50: nearestRank(sorted, 50),
    p95: nearestRank(sorted, 95),
    p99: nearestRank(sorted, 99),
    avg: values.length === 0 ? 0 : sum / values.length,
    min: sorted[0] ?? 0,
    max: sorted[sorted.length - 1] ?? 0,
    sampleCount: values.length,
  };
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

function groupLatency(
  rows: readonly StoredRow[],
  key: (row: StoredRow) => string,
): Record<string, { p50: number; p95: number; p99: number; avg: number }> {
  const groups: Record<string, number[]> = {};
  for (const row of rows) (groups[key(row)] ??= []).push(row.latencyMs);
  return Object.fromEntries(
    Object.entries(groups).map(([name, values]) => {
      const { p50, p95, p99, avg } = latencyOf(values);
      return [name, { p50, p95, p99, avg }];
    }),
  );
}

const isError = (row: StoredRow): boolean =>
  row.severity === 'ERROR' || row.severity === 'CRITICAL';
const rate = (part: number, whole: number): number => (whole === 0 ? 0 : (100 * part) / whole);

/**
 * What the snapshot must say about `rows` (all stored since the last reset, all within the last
 * minutes, at most 1000 of them), except the time-dependent throughput fields.
 */
function expectedSnapshot(rows: readonly StoredRow[]): Omit<Snapshot, 'throughput' | 'limits'> {
  const total = rows.length;
  const errors = rows.filter(isError);
  const overall = latencyOf(rows.map((r) => r.latencyMs));
  const users = new Map<string, { count: number; lastSeen: number }>();
  for (const row of rows) {
    if (row.userId === null) continue;
    const user = users.get(row.userId) ?? { count: 0, lastSeen: 0 };
    users.set(row.userId, {
      count: user.count + 1,
      lastSeen: Math.max(user.lastSeen, row.receivedMs),
    });
  }
  const eventsByType = countBy(rows, (r) => r.eventType);
  const eventsBySource = countBy(rows, (r) => r.source);
  const window = { events: total, avgLatency: overall.avg, errorRate: rate(errors.length, total) };
  return {
    summary: {
      totalEvents: total,
      eventsPerSecond: -1, // replaced by the caller: it is time-dependent
      avgLatency: overall.avg,
      errorRate: rate(errors.length, total),
      uniqueUsers: users.size,
      uniqueSources: Object.keys(eventsBySource).length,
      uniqueEventTypes: Object.keys(eventsByType).length,
    },
    eventsByType,
    eventsBySource,
    eventsBySeverity: {
      INFO: rows.filter((r) => r.severity === 'INFO').length,
      WARNING: rows.filter((r) => r.severity === 'WARNING').length,
      ERROR: rows.filter((r) => r.severity === 'ERROR').length,
      CRITICAL: rows.filter((r) => r.severity === 'CRITICAL').length,
    },
    latencyMetrics: {
      overall,
      byType: groupLatency(rows, (r) => r.eventType),
      bySource: groupLatency(rows, (r) => r.source),
    },
    errorMetrics: {
      totalErrors: errors.length,
      errorRate: rate(errors.length, total),
      errorsByType: countBy(errors, (r) => r.eventType),
      errorsBySource: countBy(errors, (r) => r.source),
    },
    timeWindows: { last5Minutes: window, last15Minutes: window, last1Hour: window },
    topUsers: [...users.entries()]
      .sort(([, a], [, b]) => b.count - a.count || b.lastSeen - a.lastSeen)
      .slice(0, 10)
      .map(([userId, user]) => ({
        userId,
        eventCount: user.count,
        lastSeen: new Date(user.lastSeen).toISOString(),
      })),
  };
}

/** The busiest second of `rows` by receive time: its count and start (the earliest among equals). */
function peakOf(rows: readonly StoredRow[]): { peak: number; at: number } {
  const perSecond = countBy(rows, (r) => String(Math.floor(r.receivedMs / 1000)));
  let peak = 0;
  let at = 0;
  for (const [second, count] of Object.entries(perSecond)) {
    const start = Number(second) * 1000;
    if (count > peak || (count === peak && start < at)) {
      peak = count;
      at = start;
    }
  }
  return { peak, at };
}

interface Assert {
  strictSame(found: unknown, wanted: unknown, message: string): boolean;
  equal(found: unknown, wanted: unknown, message: string): boolean;
  ok(value: unknown, message: string): boolean;
}

/**
 * Waits until the snapshot counts `rows.length` events, then for a few more snapshots from the
 * actor (a second count of the same events would show by then), and checks every field against
 * `rows`.
 */
async function expectCounted(
  t: Assert,
  rows: readonly StoredRow[],
  since: number,
): Promise<Snapshot> {
  await waitForMetrics(
    svc,
    (s) => s.summary.totalEvents >= rows.length,
    `${rows.length} events counted`,
  );
  await snapshots.pass(6);
  const snapshot = await getMetrics(svc);
  const { throughput, limits: _limits, restoredFrom: _restoredFrom, ...rest } = snapshot;
  const wanted = expectedSnapshot(rows);
  t.strictSame(
    { ...rest, summary: { ...rest.summary, eventsPerSecond: -1 } },
    wanted,
    'every count, map, latency, window and top user matches what is stored, counted once',
  );
  t.equal(snapshot.summary.eventsPerSecond, throughput.current, 'eventsPerSecond = current');
  t.ok(throughput.current <= rows.length / 5, 'current: at most all events over 5 s');
  const { peak, at } = peakOf(rows);
  t.equal(throughput.peak, peak, 'peak: the busiest second by receive time');
  t.equal(throughput.peakTimestamp, new Date(at).toISOString(), 'peakTimestamp: that second');
  t.ok(throughput.avg > 0 && throughput.avg <= rows.length, 'avg events per second');
  t.ok(Date.parse(throughput.peakTimestamp) >= since - 1000, 'peak after the reset');
  return snapshot;
}

const event = (eventType: string, source: string, extra: Record<string, unknown> = {}) => ({
  eventType,
  source,
  ...extra,
});

async function postEvent(body: unknown): Promise<number> {
  const res = await svc.request('/api/v1/events', { json: body });
  if (res.status !== 202) throw new Error(`POST /api/v1/events: ${res.status} ${await res.text()}`);
  return idOf((await readAck(res)).eventId);
}

async function postBatch(body: unknown): Promise<BatchResult> {
  const res = await svc.request('/api/v1/events/batch', { json: body });
  if (res.status !== 202) throw new Error(`POST batch: ${res.status} ${await res.text()}`);
  return readBatch(res);
}

const acceptedIds = (result: BatchResult): number[] =>
  result.results.flatMap((r) => (r.status === 'accepted' ? [idOf(r.eventId)] : []));

/** Requests the API rejects with 400 (or 415): none of them may ever be counted. */
async function postRejected(t: Assert): Promise<void> {
  const bodies: unknown[] = [
    event('rejected.no-source', ''),
    { eventType: 'rejected.missing-source' },
    event('rejected.severity', 'web', { severity: 'info' }),
    event('rejected.unknown-field', 'web', { extra: 1 }),
    event('rejected.tags', 'web', { tags: { n: 1 } }),
    event('rejected.timestamp', 'web', { timestamp: '2026-01-01T00:00:00' }),
    event('rejected.nul', 'web', { userId: 'a\u0000b' }),
  ];
  const statuses = await Promise.all(
    bodies.map(async (body) => (await svc.request('/api/v1/events', { json: body })).status),
  );
  t.strictSame(
    statuses,
    bodies.map(() => 400),
    'every invalid event answers 400',
  );
  const malformed = await svc.request('/api/v1/events', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"eventType":"rejected.malformed",',
  });
  t.equal(malformed.status, 400, 'malformed JSON: 400');
  const wrongType = await svc.request('/api/v1/events', {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: JSON.stringify(event('rejected.text', 'web')),
  });
  t.equal(wrongType.status, 415, 'not JSON: 415');
  const badBatch = await svc.request('/api/v1/events/batch', {
    json: { events: [event('rejected.batch-field', 'web')], foo: 1 },
  });
  t.equal(badBatch.status, 400, 'batch with an unknown top-level field: 400');
  await Promise.all([malformed.text(), wrongType.text(), badBatch.text()]);
}

const rejectedKeys = (s: Snapshot): string[] =>
  Object.keys(s.eventsByType).filter((k) => k.startsWith('rejected.'));

void t.test('at start: the spec 2.10 shape, every field named, all zero', async (t) => {
  const s = await getMetrics(svc);
  t.strictSame(Object.keys(s).sort(), [
    'errorMetrics',
    'eventsBySeverity',
    'eventsBySource',
    'eventsByType',
    'latencyMetrics',
    'limits',
    'restoredFrom',
    'summary',
    'throughput',
    'timeWindows',
    'topUsers',
  ]);
  t.strictSame(Object.keys(s.summary).sort(), [
    'avgLatency',
    'errorRate',
    'eventsPerSecond',
    'totalEvents',
    'uniqueEventTypes',
    'uniqueSources',
    'uniqueUsers',
  ]);
  t.strictSame(Object.keys(s.eventsBySeverity), ['INFO', 'WARNING', 'ERROR', 'CRITICAL']);
  t.strictSame(Object.keys(s.latencyMetrics).sort(), ['bySource', 'byType', 'overall']);
  t.strictSame(Object.keys(s.latencyMetrics.overall).sort(), [
    'avg',
    'max',
    'min',
    'p50',
    'p95',
    'p99',
    'sampleCount',
  ]);
  t.strictSame(Object.keys(s.errorMetrics).sort(), [
    'errorRate',
    'errorsBySource',
    'errorsByType',
    'totalErrors',
  ]);
  t.strictSame(Object.keys(s.throughput).sort(), [
    'avg',
    'current',
    'peak',
    'peakTimestamp',
    'trend',
  ]);
  t.strictSame(Object.keys(s.timeWindows).sort(), ['last15Minutes', 'last1Hour', 'last5Minutes']);
  for (const window of Object.values(s.timeWindows)) {
    t.strictSame(Object.keys(window).sort(), ['avgLatency', 'errorRate', 'events']);
  }
  for (const [path, value] of numbersIn({ ...s, limits: undefined, restoredFrom: undefined })) {
    t.equal(value, 0, `${path} is 0`);
  }
  t.strictSame(s.topUsers, []);
  t.equal(s.throughput.trend, 'stable');
  // Issue 33: a new schema has no checkpoint; its (no) stored events were counted again.
  t.match(s.restoredFrom, {
    checkpointAt: null,
    replayedEvents: 0,
    rebuilt: { reason: 'no checkpoint', rebuiltMinutes: 60 },
  });
});

void t.test('single events: each counted once, every aggregate as stored', async (t) => {
  await resetMetrics(svc);
  const since = Date.now();
  const ids: number[] = [];
  // One by one, each acknowledged before the next is sent ...
  ids.push(await postEvent(event('shop.checkout', 'web', { userId: 'alice', severity: 'INFO' })));
  ids.push(await postEvent(event('shop.checkout', 'web', { userId: 'alice', severity: 'ERROR' })));
  ids.push(
    await postEvent(event('shop.checkout', 'mobile', { userId: 'bob', severity: 'WARNING' })),
  );
  // ... then concurrently (one group commit), beside requests the API rejects.
  const [concurrent] = await Promise.all([
    Promise.all([
      postEvent(event('shop.refund', 'web', { userId: 'alice' })),
      postEvent(event('shop.refund', 'batch-job', { severity: 'CRITICAL', userId: null })),
      postEvent(
        event('auth.login', 'mobile', {
          userId: 'bob',
          sessionId: 's-1',
          tags: { region: 'eu' },
          metadata: { attempt: 2 },
        }),
      ),
      // Back-dated: counted now, by its receive time (DESIGN 4).
      postEvent(event('auth.login', 'web', { userId: 'carol', timestamp: '2020-01-01T00:00:00Z' })),
    ]),
    postRejected(t),
  ]);
  ids.push(...concurrent);
  const rows = await storedRows(ids);
  const s = await expectCounted(t, rows, since);
  t.strictSame(rejectedKeys(s), [], 'no rejected event is counted');
  t.strictSame(
    s.topUsers.map((u) => [u.userId, u.eventCount]),
    [
      ['alice', 3],
      ['bob', 2],
      ['carol', 1],
    ],
    'top users, most active first',
  );
  t.equal(s.summary.errorRate, (100 * 2) / 7, 'errorRate: ERROR + CRITICAL over all, unrounded');
});

void t.test('batch events: accepted items counted once, rejected items never', async (t) => {
  await resetMetrics(svc);
  const since = Date.now();
  const array = await postBatch([
    event('batch.a', 'svc-1', { userId: 'u1' }),
    event('rejected.batch-item', 'svc-1', { severity: 'LOW' }),
    event('batch.a', 'svc-2', { userId: 'u1', severity: 'ERROR' }),
    event('batch.b', 'svc-2', { userId: 'u2' }),
    { eventType: 'rejected.batch-item-no-source' },
    event('batch.b', 'svc-1', { severity: 'CRITICAL' }),
    event('batch.c', 'svc-3', { userId: 'u1', severity: 'WARNING' }),
  ]);
  t.match(array, { accepted: 5, rejected: 2 });
  const wrapped = await postBatch({
    events: [
      event('batch.a', 'svc-3', { userId: 'u2' }),
      event('batch.c', 'svc-1', { userId: 'u3', severity: 'ERROR' }),
      event('batch.a', 'svc-1', { userId: 'u1' }),
    ],
  });
  t.match(wrapped, { accepted: 3, rejected: 0 });
  const none = await postBatch([event('rejected.all', 'x', { severity: 'nope' })]);
  t.match(none, { accepted: 0, rejected: 1 });
  const rows = await storedRows([...acceptedIds(array), ...acceptedIds(wrapped)]);
  t.equal(rows.length, 8);
  const s = await expectCounted(t, rows, since);
  t.strictSame(rejectedKeys(s), [], 'no rejected batch item is counted');
  t.strictSame(
    s.topUsers.map((u) => [u.userId, u.eventCount]),
    [
      ['u1', 4],
      ['u2', 2],
      ['u3', 1],
    ],
  );
});

void t.test('single and batch events together, over the 1000 latency samples', async (t) => {
  await resetMetrics(svc);
  const since = Date.now();
  const ids: number[] = [];
  for (let round = 0; round < 2; round++) {
    const items = Array.from({ length: 600 }, (_, i) =>
      event(`bulk.t${i % 7}`, `bulk-s${i % 3}`, {
        userId: `bulk-u${i % 13}`,
        severity: (['INFO', 'WARNING', 'ERROR', 'CRITICAL'] as const)[i % 4],
      }),
    );
    const [result, single] = await Promise.all([
      postBatch(items),
      postEvent(event('bulk.single', 'bulk-s0', { userId: 'bulk-u0' })),
    ]);
    t.equal(result.accepted, 600);
    ids.push(...acceptedIds(result), single);
  }
  const rows = await storedRows(ids);
  await waitForMetrics(svc, (s) => s.summary.totalEvents >= rows.length, 'bulk events counted');
  await snapshots.pass(6);
  const s = await getMetrics(svc);
  t.equal(s.summary.totalEvents, 1202, 'every event counted once');
  t.equal(s.latencyMetrics.overall.sampleCount, 1000, 'latency covers the last 1000 (spec 8)');
  t.strictSame(
    s.eventsByType,
    countBy(rows, (r) => r.eventType),
  );
  t.strictSame(
    s.eventsBySource,
    countBy(rows, (r) => r.source),
  );
  t.strictSame(s.eventsBySeverity, { INFO: 302, WARNING: 300, ERROR: 300, CRITICAL: 300 });
  t.equal(s.errorMetrics.totalErrors, 600);
  t.equal(s.summary.errorRate, (100 * 600) / 1202);
  t.equal(s.summary.uniqueUsers, 13);
  t.equal(s.summary.avgLatency, latencyOf(rows.map((r) => r.latencyMs)).avg, 'avg over all');
  t.equal(s.timeWindows.last5Minutes.events, 1202);
  t.equal(s.timeWindows.last1Hour.events, 1202);
  // bulk-u0: 47 per batch + 2 singles; bulk-u1: 47 per batch; the others 46 (ties: same receive time).
  t.strictSame(
    s.topUsers.map((u) => u.eventCount),
    [96, 94, 92, 92, 92, 92, 92, 92, 92, 92],
  );
  t.strictSame(
    s.topUsers.slice(0, 2).map((u) => u.userId),
    ['bulk-u0', 'bulk-u1'],
  );
  t.ok(Date.parse(s.throughput.peakTimestamp) >= since - 1000);
});

void t.test('a failed insert is never counted; the next good event is', async (t) => {
  await resetMetrics(svc);
  const since = Date.now();
  await svc.db.sql`ALTER TABLE events ADD CONSTRAINT no_boom CHECK (event_type <> 'boom')`;
  t.teardown(async () => {
    await svc.db.sql`ALTER TABLE events DROP CONSTRAINT IF EXISTS no_boom`;
  });
  const res = await svc.request('/api/v1/events', { json: event('boom', 'web', { userId: 'x' }) });
  t.equal(res.status, 500, 'the insert failed: 500');
  t.match(await res.json(), { status: 'error', message: /^Failed to process event/ });
  const batch = await svc.request('/api/v1/events/batch', {
    json: [event('boom.sibling', 'web'), event('boom', 'web')],
  });
  t.equal(batch.status, 500, 'a batch holding it fails as a whole: 500');
  await batch.text();
  const good = await postEvent(event('after.boom', 'web', { userId: 'y' }));
  const rows = await storedRows([good]);
  const s = await expectCounted(t, rows, since);
  t.strictSame(s.eventsByType, { 'after.boom': 1 }, 'only the stored event is counted');
  const [stored] = await svc.db.sql<{ n: number }[]>`
    SELECT count(*)::int4 AS n FROM events WHERE event_type LIKE 'boom%'`;
  t.equal(stored?.n, 0, 'nothing of the failed inserts is stored');
});

void t.test('reset: 200 with the JSON string, then zero at once', async (t) => {
  await postEvent(event('before.reset', 'web', { userId: 'z', severity: 'ERROR' }));
  await waitForMetrics(svc, (s) => s.eventsByType['before.reset'] === 1, 'the event counted');
  const [before] = await svc.db.sql<{ n: number }[]>`SELECT count(*)::int4 AS n FROM events`;

  const start = Date.now();
  const res = await svc.request('/api/v1/metrics/reset', { method: 'POST' });
  const end = Date.now();
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'application/json');
  t.equal(await res.text(), '"Metrics reset successfully"', 'a JSON string');

  // Right after the answer: no polling, the next GET must already be zero.
  const s = await getMetrics(svc);
  for (const [path, value] of numbersIn({ ...s, limits: undefined, restoredFrom: undefined })) {
    t.equal(value, 0, `${path} is 0`);
  }
  t.strictSame(s.eventsBySeverity, { INFO: 0, WARNING: 0, ERROR: 0, CRITICAL: 0 });
  t.strictSame(s.eventsByType, {});
  t.strictSame(s.eventsBySource, {});
  t.strictSame(s.latencyMetrics.byType, {});
  t.strictSame(s.latencyMetrics.bySource, {});
  t.strictSame(s.errorMetrics.errorsByType, {});
  t.strictSame(s.errorMetrics.errorsBySource, {});
  t.strictSame(s.topUsers, []);
  t.equal(s.throughput.trend, 'stable');
  const peakAt = Date.parse(s.throughput.peakTimestamp);
  t.ok(peakAt >= start - 1 && peakAt <= end + 1, 'peakTimestamp: the time of the reset');

  const [after] = await svc.db.sql<{ n: number }[]>`SELECT count(*)::int4 AS n FROM events`;
  t.equal(after?.n, before?.n, 'stored events are untouched');

  // A body and any Content-Type are ignored; a reset of zero is still a reset.
  const again = await svc.request('/api/v1/metrics/reset', {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: 'whatever',
  });
  t.equal(again.status, 200);
  t.equal(await again.text(), '"Metrics reset successfully"');

  // Counting starts again from zero.
  const id = await postEvent(event('after.reset', 'web', { userId: 'z' }));
  await expectCounted(t, await storedRows([id]), start);
});
