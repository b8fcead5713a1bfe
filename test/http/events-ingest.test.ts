// POST /api/v1/events (spec 2.2, 2.3, DESIGN 2): 202 means stored; what is stored and returned
// is exactly what was sent, with defaults filled in and the timestamp normalised to UTC.
import t from 'tap';
import {
  idOf,
  readAck,
  readEvent,
  readPage,
  storedEvent,
  type Ack,
  type ApiEvent,
} from '../support/events.ts';
import { startTestService } from '../support/service.ts';

const svc = await startTestService(t);

const ingest = async (body: unknown): Promise<Ack> => {
  const res = await svc.request('/api/v1/events', { json: body });
  if (res.status !== 202) throw new Error(`expected 202, got ${res.status}: ${await res.text()}`);
  return readAck(res);
};

const fetchEvent = async (eventId: string): Promise<ApiEvent> => {
  const res = await svc.request(`/api/v1/events/${eventId}`);
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${await res.text()}`);
  return readEvent(res);
};

void t.test(
  'an accepted event is in PostgreSQL when the 202 arrives, exactly as sent',
  async (t) => {
    const body = {
      eventType: 'checkout.completed',
      source: 'shop-api',
      timestamp: '2026-11-22T19:30:00.123Z',
      userId: 'user-42',
      sessionId: 'session-7',
      severity: 'WARNING',
      tags: { region: 'eu-west', tier: 'gold' },
      metadata: { amount: 99.5, items: [{ sku: 'A-1', qty: 2 }], gift: false, coupon: null },
    };
    const before = Date.now();
    const res = await svc.request('/api/v1/events', { json: body });
    const after = Date.now();
    t.equal(res.status, 202);
    const ack = await readAck(res);
    t.match(ack, {
      status: 'accepted',
      eventType: 'checkout.completed',
      timestamp: '2026-11-22T19:30:00.123Z',
    });
    t.match(ack.message, /\S/);

    // No polling: the row must already be there.
    const row = await storedEvent(svc.db, idOf(ack.eventId));
    if (row === null) throw new Error(`${ack.eventId} is not in PostgreSQL after its 202`);
    t.match(row, {
      eventId: ack.eventId,
      eventType: body.eventType,
      timestamp: body.timestamp,
      source: body.source,
      userId: body.userId,
      sessionId: body.sessionId,
      severity: 'WARNING',
      error: false,
    });
    t.same(row.tags, body.tags);
    t.same(row.metadata, body.metadata);
    const receivedAt = Date.parse(row.receivedAt);
    t.ok(receivedAt >= before - 1 && receivedAt <= after, 'receivedAt is when the request arrived');
    t.ok(Number.isInteger(row.processingLatencyMs) && row.processingLatencyMs >= 0);

    t.same(await fetchEvent(ack.eventId), row, 'GET by eventId returns the stored row');
  },
);

void t.test(
  'defaults: INFO, null userId and sessionId, empty tags and metadata, receive time',
  async (t) => {
    const before = Date.now();
    const ack = await ingest({ eventType: 'page.viewed', source: 'web' });
    const after = Date.now();
    const event = await fetchEvent(ack.eventId);
    t.match(event, { severity: 'INFO', error: false, userId: null, sessionId: null });
    t.same(event.tags, {});
    t.same(event.metadata, {});
    t.equal(event.timestamp, ack.timestamp, 'the ack gives the generated timestamp');
    t.equal(event.timestamp, event.receivedAt, 'an absent timestamp is the receive time');
    const ts = Date.parse(event.timestamp);
    t.ok(ts >= before - 1 && ts <= after, 'the receive time is when the request arrived');
    t.same(await storedEvent(svc.db, event.id), event);
  },
);

void t.test('explicit null userId and sessionId are stored as null', async (t) => {
  const ack = await ingest({ eventType: 'a.b', source: 's', userId: null, sessionId: null });
  t.match(await storedEvent(svc.db, idOf(ack.eventId)), { userId: null, sessionId: null });
});

void t.test('error is true exactly for ERROR and CRITICAL', async (t) => {
  const expected = { INFO: false, WARNING: false, ERROR: true, CRITICAL: true } as const;
  for (const [severity, error] of Object.entries(expected)) {
    const ack = await ingest({ eventType: 'sev.check', source: 's', severity });
    t.match(await fetchEvent(ack.eventId), { severity, error }, severity);
  }
});

void t.test('strings and metadata round-trip unaltered', async (t) => {
  const body = {
    eventType: 'x'.repeat(255),
    source: '😀'.repeat(255), // 255 characters, 510 UTF-16 units
    userId: 'quote " backslash \\ newline \n tab \t',
    sessionId: '会话-セッション-сессия',
    tags: { 'line\nbreak': 'ok', 'emoji 🎉': '🎉', empty: '' },
    metadata: {
      nested: { deeper: { list: [1, -2.5, 1e300, true, null, 'x', [], {}] } },
      unicode: 'é 😀 \u2028',
      escaped: '\\u0000 is only text here',
      'key.with.dots': 1,
    },
  };
  const ack = await ingest(body);
  const event = await fetchEvent(ack.eventId);
  t.match(event, {
    eventType: body.eventType,
    source: body.source,
    userId: body.userId,
    sessionId: body.sessionId,
  });
  t.same(event.tags, body.tags);
  t.same(event.metadata, body.metadata);
  t.same(await storedEvent(svc.db, event.id), event);
});

void t.test('metadata may nest 32 levels', async (t) => {
  let metadata: Record<string, unknown> = {};
  for (let i = 1; i < 32; i++) metadata = { deeper: metadata };
  const ack = await ingest({ eventType: 'deep.meta', source: 's', metadata });
  t.same((await fetchEvent(ack.eventId)).metadata, metadata);
});

const normalised: readonly (readonly [string, string])[] = [
  ['2026-11-22T19:30:00.123Z', '2026-11-22T19:30:00.123Z'],
  ['2026-11-22T19:30:00Z', '2026-11-22T19:30:00.000Z'],
  ['2026-11-22T19:30:00z', '2026-11-22T19:30:00.000Z'],
  ['2026-11-22T19:30Z', '2026-11-22T19:30:00.000Z'],
  ['2026-11-22T19:30:00.1Z', '2026-11-22T19:30:00.100Z'],
  ['2026-11-22T19:30:00.12Z', '2026-11-22T19:30:00.120Z'],
  ['2026-11-22T19:30:00.123456Z', '2026-11-22T19:30:00.123Z'],
  ['2026-11-22T19:30:00.999999999Z', '2026-11-22T19:30:00.999Z'],
  ['2026-11-22T19:30:00+05:30', '2026-11-22T14:00:00.000Z'],
  ['2026-11-22T19:30:00.5-0800', '2026-11-23T03:30:00.500Z'],
  ['2026-11-22T19:30:00+0000', '2026-11-22T19:30:00.000Z'],
  ['2026-11-22T19:30:00-00:00', '2026-11-22T19:30:00.000Z'],
  ['2026-01-01T00:30:00+01:00', '2025-12-31T23:30:00.000Z'],
  ['2024-02-29T23:59:59.999-01:00', '2024-03-01T00:59:59.999Z'],
  ['1969-12-31T23:59:59.999Z', '1969-12-31T23:59:59.999Z'],
  ['0050-06-15T12:00:00.5Z', '0050-06-15T12:00:00.500Z'],
  ['0000-01-01T00:00:00Z', '0000-01-01T00:00:00.000Z'],
  ['2025-12-31T23:59:59.999+14:00', '2025-12-31T09:59:59.999Z'],
];

void t.test('timestamps are normalised to UTC with millisecond precision', async (t) => {
  const ids = new Map<string, string>();
  for (const [given, expected] of normalised) {
    const ack = await ingest({ eventType: 'ts.norm', source: 's', timestamp: given });
    t.equal(ack.timestamp, expected, `ack for ${given}`);
    const row = await storedEvent(svc.db, idOf(ack.eventId));
    t.equal(row?.timestamp, expected, `stored for ${given}`);
    t.equal((await fetchEvent(ack.eventId)).timestamp, expected, `read back for ${given}`);
    ids.set(ack.eventId, expected);
  }
  // Every one of them can be listed too (newest first), whatever its year.
  const res = await svc.request('/api/v1/events/type/ts.norm?size=100');
  t.equal(res.status, 200);
  const page = await readPage(res);
  t.equal(page.totalElements, normalised.length);
  const listed = page.content.map((e) => [e.eventId, e.timestamp]);
  const wanted = [...ids].sort(([a, x], [b, y]) =>
    x === y ? idOf(b) - idOf(a) : Date.parse(y) - Date.parse(x),
  );
  t.same(listed, wanted);
});

void t.test('concurrent requests each get their own stored event', async (t) => {
  const n = 64;
  const acks = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      ingest({ eventType: 'concurrent', source: 's', metadata: { i } }),
    ),
  );
  t.equal(new Set(acks.map((a) => a.eventId)).size, n, 'distinct eventIds');
  for (const [i, ack] of acks.entries()) {
    const row = await storedEvent(svc.db, idOf(ack.eventId));
    t.same(row?.metadata, { i }, `request ${i} is stored under its own eventId`);
  }
});
