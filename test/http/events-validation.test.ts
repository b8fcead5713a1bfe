// POST /api/v1/events: every validation rule of DESIGN 2 answers 400 naming each failing field,
// and nothing reaches PostgreSQL. Each bad body is a valid event with one thing wrong, so a
// service that let it through would store it.
import t from 'tap';
import { expectError, stored } from '../support/events.ts';
import { startTestService } from '../support/service.ts';

const svc = await startTestService(t);

const valid = { eventType: 'checkout.completed', source: 'shop', severity: 'INFO' } as const;
const nested = (levels: number): Record<string, unknown> => {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { deeper: value };
  return value;
};

interface Case {
  readonly name: string;
  readonly body: Record<string, unknown>;
  readonly fields: readonly string[];
}

const without = (key: keyof typeof valid): Record<string, unknown> =>
  Object.fromEntries(Object.entries(valid).filter(([k]) => k !== key));

const cases: Case[] = [
  // eventType and source: required, non-empty strings of at most 255 characters.
  { name: 'eventType missing', body: without('eventType'), fields: ['eventType'] },
  { name: 'source missing', body: without('source'), fields: ['source'] },
  { name: 'both missing', body: { severity: 'INFO' }, fields: ['eventType', 'source'] },
  { name: 'eventType empty', body: { ...valid, eventType: '' }, fields: ['eventType'] },
  {
    name: 'eventType 256 characters',
    body: { ...valid, eventType: 'x'.repeat(256) },
    fields: ['eventType'],
  },
  {
    name: 'eventType 256 emoji',
    body: { ...valid, eventType: '😀'.repeat(256) },
    fields: ['eventType'],
  },
  { name: 'eventType null', body: { ...valid, eventType: null }, fields: ['eventType'] },
  { name: 'eventType number', body: { ...valid, eventType: 5 }, fields: ['eventType'] },
  { name: 'eventType array', body: { ...valid, eventType: ['a'] }, fields: ['eventType'] },
  { name: 'source empty', body: { ...valid, source: '' }, fields: ['source'] },
  {
    name: 'source 256 characters',
    body: { ...valid, source: 's'.repeat(256) },
    fields: ['source'],
  },
  { name: 'source boolean', body: { ...valid, source: true }, fields: ['source'] },
  // severity: exactly one of the four upper-case values.
  ...['info', 'Info', ' INFO', 'INFO ', 'DEBUG', 'FATAL', '', null, 1, ['INFO']].map(
    (severity) => ({
      name: `severity ${JSON.stringify(severity)}`,
      body: { ...valid, severity },
      fields: ['severity'],
    }),
  ),
  // timestamp: an ISO 8601 instant with a zone, and a real one.
  ...[
    '2026-11-22T19:30:00',
    '2026-11-22T19:30:00.123',
    '2026-11-22',
    '2026-02-30T10:00:00Z',
    '2025-02-29T10:00:00Z',
    '2026-04-31T10:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-11-00T00:00:00Z',
    '2026-11-22T24:00:00Z',
    '2026-11-22T19:60:00Z',
    '2026-11-22T19:30:60Z',
    '2026-11-22T19:30:00+24:00',
    '2026-11-22T19:30:00+05:60',
    '2026-11-22T19:30:00 Z',
    ' 2026-11-22T19:30:00Z',
    '2026-11-22T19:30:00Z ',
    'yesterday',
    '',
    1763840000000,
    null,
  ].map((timestamp) => ({
    name: `timestamp ${JSON.stringify(timestamp)}`,
    body: { ...valid, timestamp },
    fields: ['timestamp'],
  })),
  // userId and sessionId: strings or null.
  ...[5, true, {}, ['u']].map((userId) => ({
    name: `userId ${JSON.stringify(userId)}`,
    body: { ...valid, userId },
    fields: ['userId'],
  })),
  ...[5, false, {}].map((sessionId) => ({
    name: `sessionId ${JSON.stringify(sessionId)}`,
    body: { ...valid, sessionId },
    fields: ['sessionId'],
  })),
  // ... of at most 255 characters: each sits in every metrics snapshot and STOMP frame.
  {
    name: 'userId of 256 characters',
    body: { ...valid, userId: 'u'.repeat(256) },
    fields: ['userId'],
  },
  {
    name: 'sessionId of 256 characters outside the BMP',
    body: { ...valid, sessionId: '😀'.repeat(256) },
    fields: ['sessionId'],
  },
  {
    name: 'userId of a megabyte',
    body: { ...valid, userId: 'u'.repeat(1024 * 1024 - 200) },
    fields: ['userId'],
  },
  // tags: an object of string values; a bad value is named tags.<key>.
  ...[[], ['a'], 'region=eu', null, 5].map((tags) => ({
    name: `tags ${JSON.stringify(tags)}`,
    body: { ...valid, tags },
    fields: ['tags'],
  })),
  {
    name: 'tags number value',
    body: { ...valid, tags: { region: 'eu', retries: 3 } },
    fields: ['tags.retries'],
  },
  { name: 'tags null value', body: { ...valid, tags: { region: null } }, fields: ['tags.region'] },
  { name: 'tags boolean value', body: { ...valid, tags: { beta: true } }, fields: ['tags.beta'] },
  {
    name: 'tags object value',
    body: { ...valid, tags: { geo: { region: 'eu' } } },
    fields: ['tags.geo'],
  },
  {
    name: 'tags two bad values',
    body: { ...valid, tags: { a: 1, b: 'ok', c: [] } },
    fields: ['tags.a', 'tags.c'],
  },
  {
    name: 'tags value under a key with a line break',
    body: { ...valid, tags: { 'line\nbreak': 1, 'para\u2028sep': 2 } },
    fields: ['tags.line\nbreak', 'tags.para\u2028sep'],
  },
  // tags are bounded (issue 29): 64 of them, keys 255 characters, values 1,024.
  {
    name: 'tags 65 of them',
    body: {
      ...valid,
      tags: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v'])),
    },
    fields: ['tags'],
  },
  {
    name: 'tags key 256 characters',
    body: { ...valid, tags: { ['k'.repeat(256)]: 'v' } },
    fields: ['tags'],
  },
  {
    name: 'tags value 1,025 characters',
    body: { ...valid, tags: { big: 'v'.repeat(1025) } },
    fields: ['tags.big'],
  },
  {
    name: 'tags value 900 KB',
    body: { ...valid, tags: { big: 'v'.repeat(900_000) } },
    fields: ['tags.big'],
  },
  // metadata: an object (any JSON inside), not nested without bound.
  ...['note', [], [{ a: 1 }], null, 5, true].map((metadata) => ({
    name: `metadata ${JSON.stringify(metadata)}`,
    body: { ...valid, metadata },
    fields: ['metadata'],
  })),
  {
    name: 'metadata 33 levels deep',
    body: { ...valid, metadata: nested(33) },
    fields: ['metadata'],
  },
  // Unknown top-level fields are named, never dropped.
  { name: 'unknown field', body: { ...valid, priority: 1 }, fields: ['priority'] },
  {
    name: 'unknown field differing in case',
    body: { ...valid, EventType: 'x' },
    fields: ['EventType'],
  },
  {
    name: 'assigned fields sent',
    body: { ...valid, id: 7, eventId: 'evt_7', receivedAt: '2026-11-22T19:30:00Z' },
    fields: ['id', 'eventId', 'receivedAt'],
  },
  {
    name: 'unknown fields named __proto__ and constructor',
    body: JSON.parse(
      '{"eventType":"a","source":"b","__proto__":{"x":1},"constructor":1}',
    ) as Record<string, unknown>,
    fields: ['__proto__', 'constructor'],
  },
  // NUL in any string, named by its path; a NUL in a key names the key's parent.
  {
    name: 'NUL in eventType',
    body: { ...valid, eventType: 'checkout\u0000completed' },
    fields: ['eventType'],
  },
  { name: 'NUL in source', body: { ...valid, source: '\u0000' }, fields: ['source'] },
  { name: 'NUL in userId', body: { ...valid, userId: 'u\u0000' }, fields: ['userId'] },
  { name: 'NUL in sessionId', body: { ...valid, sessionId: '\u0000s' }, fields: ['sessionId'] },
  {
    name: 'NUL in timestamp',
    body: { ...valid, timestamp: '2026-11-22T19:30:00Z\u0000' },
    fields: ['timestamp'],
  },
  {
    name: 'NUL in a tag value',
    body: { ...valid, tags: { region: 'eu\u0000west' } },
    fields: ['tags.region'],
  },
  {
    name: 'NUL in a tag key',
    body: { ...valid, tags: { 're\u0000gion': 'eu' } },
    fields: ['tags'],
  },
  {
    name: 'NUL in a nested metadata string',
    body: { ...valid, metadata: { note: { text: 'a\u0000b' } } },
    fields: ['metadata.note.text'],
  },
  {
    name: 'NUL in a nested metadata key',
    body: { ...valid, metadata: { note: { 'te\u0000xt': 'a' } } },
    fields: ['metadata.note'],
  },
  {
    name: 'NUL in a top-level metadata key',
    body: { ...valid, metadata: { '\u0000': 1 } },
    fields: ['metadata'],
  },
  {
    name: 'NUL in a metadata array item',
    body: { ...valid, metadata: { list: ['a', 'b\u0000'] } },
    fields: ['metadata.list.1'],
  },
  {
    name: 'NUL in several fields',
    body: {
      ...valid,
      eventType: 'a\u0000',
      tags: { region: '\u0000' },
      metadata: { note: { text: '\u0000' } },
    },
    fields: ['eventType', 'tags.region', 'metadata.note.text'],
  },
  // Unpaired surrogates are not Unicode: PostgreSQL would alter them (text) or refuse the batch (jsonb).
  {
    name: 'lone high surrogate in eventType',
    body: { ...valid, eventType: 'a\ud800' },
    fields: ['eventType'],
  },
  {
    name: 'lone low surrogate in metadata',
    body: { ...valid, metadata: { note: { text: '\udc00b' } } },
    fields: ['metadata.note.text'],
  },
  {
    name: 'reversed surrogate pair in a tag',
    body: { ...valid, tags: { region: '\ude00\ud83d' } },
    fields: ['tags.region'],
  },
  {
    name: 'lone surrogate in a metadata key',
    body: { ...valid, metadata: { '\ud83d': 1 } },
    fields: ['metadata'],
  },
  // timestamp: at most 24 hours ahead of the server clock (issue 29).
  {
    name: 'timestamp 9999-12-31',
    body: { ...valid, timestamp: '9999-12-31T23:59:59Z' },
    fields: ['timestamp'],
  },
  {
    name: 'timestamp 25 hours ahead',
    body: { ...valid, timestamp: new Date(Date.now() + 25 * 3_600_000).toISOString() },
    fields: ['timestamp'],
  },
  // Every failing field at once.
  {
    name: 'every field wrong',
    body: {
      eventType: '',
      source: 5,
      severity: 'info',
      timestamp: '2026-02-30T00:00:00Z',
      userId: 1,
      sessionId: [],
      tags: { a: 1 },
      metadata: [],
      extra: true,
    },
    fields: [
      'eventType',
      'source',
      'severity',
      'timestamp',
      'userId',
      'sessionId',
      'tags.a',
      'metadata',
      'extra',
    ],
  },
  {
    name: 'a bad timestamp beside an unknown field',
    body: { ...valid, timestamp: '2026-11-22T19:30:00', extra: 1 },
    fields: ['timestamp', 'extra'],
  },
];

for (const c of cases) {
  void t.test(`400 for ${c.name}`, async (t) => {
    const res = await svc.request('/api/v1/events', { json: c.body });
    const error = await expectError(t, res, 400, 'VALIDATION_FAILED', c.fields);
    t.equal(error.message, 'Validation failed');
    for (const message of Object.values(error.errors ?? {}))
      t.match(message, /\S/, 'each error has a message');
    t.same(await stored(svc.db), { rows: 0, counted: 0 }, 'nothing stored');
  });
}

void t.test('the same bodies are valid once the fault is removed', async (t) => {
  // Guards the cases above: the base event itself is accepted (and is the only row stored).
  const res = await svc.request('/api/v1/events', { json: valid });
  t.equal(res.status, 202);
  t.same(await stored(svc.db), { rows: 1, counted: 1 });
});

void t.test(
  'userId and sessionId: 255 characters pass; longer ones are named, in a batch too',
  async (t) => {
    const longest = { ...valid, userId: 'u'.repeat(255), sessionId: '😀'.repeat(255) };
    const one = await svc.request('/api/v1/events', { json: longest });
    t.equal(one.status, 202, '255 characters, even of two UTF-16 units each');
    const tooLong = await svc.request('/api/v1/events', {
      json: { ...valid, userId: 'u'.repeat(256) },
    });
    const error = await expectError(t, tooLong, 400, 'VALIDATION_FAILED', ['userId']);
    t.same(error.errors, { userId: 'userId must be a string of at most 255 characters, or null' });
    const batch = await svc.request('/api/v1/events/batch', {
      json: [longest, { ...valid, sessionId: 's'.repeat(256) }],
    });
    t.equal(batch.status, 202);
    const result = (await batch.json()) as {
      accepted: number;
      rejected: number;
      results: unknown[];
    };
    t.match(result, { accepted: 1, rejected: 1 });
    t.match(result.results[1], {
      status: 'error',
      index: 1,
      errors: { sessionId: 'sessionId must be a string of at most 255 characters, or null' },
    });
  },
);

void t.test(
  'bounds pass at their limits: 64 tags, key 255, value 1,024, 23 hours ahead',
  async (t) => {
    const tags = Object.fromEntries(Array.from({ length: 63 }, (_, i) => [`k${i}`, 'v']));
    const atLimits = {
      ...valid,
      tags: { ...tags, ['k'.repeat(255)]: '😀'.repeat(1024) },
      timestamp: new Date(Date.now() + 23 * 3_600_000).toISOString(),
    };
    const res = await svc.request('/api/v1/events', { json: atLimits });
    t.equal(res.status, 202, await res.clone().text());
  },
);

void t.test('a number too large for a double is named, not stored as null', async (t) => {
  for (const [raw, field] of [
    ['{"eventType":"a","source":"s","metadata":{"big":1e309}}', 'metadata.big'],
    ['{"eventType":"a","source":"s","metadata":{"list":[1, -2.5E+400]}}', 'metadata.list.1'],
    [`{"eventType":"a","source":"s","metadata":{"n":${'9'.repeat(400)}}}`, 'metadata.n'],
  ] as const) {
    const res = await svc.request('/api/v1/events', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: raw,
    });
    const error = await expectError(t, res, 400, 'VALIDATION_FAILED', [field]);
    t.match(error.errors?.[field], /finite number/);
  }
  const batch = await svc.request('/api/v1/events/batch', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '[{"eventType":"a","source":"s","metadata":{"big":1e309}}]',
  });
  t.match(await batch.json(), {
    accepted: 0,
    rejected: 1,
    results: [{ errors: { 'metadata.big': /finite/ } }],
  });
});
