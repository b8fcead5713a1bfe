// Event search against the real service (issue 34, docs/api.md#event-search): each filter of
// GET /api/v1/events alone and combined, keyset paging through a deep result while new events
// arrive, the exactness flag of the total, every bad filter's 400, the histogram, the NDJSON and
// CSV export (a slow reader, the cap), and read scope on all three routes.
import http from 'node:http';
import t from 'tap';
import { expectError, type ApiEvent } from '../support/events.ts';
import { keyHeaders } from '../support/keys.ts';
import { startTestService } from '../support/service.ts';

const EXPORT_CAP = 10_020;
// A generous count budget: on a loaded machine a 100 ms one could turn an exact total into an estimate.
const svc = await startTestService(t, {
  EVENT_EXPORT_MAX_ROWS: String(EXPORT_CAP),
  EVENT_SEARCH_COUNT_MS: '20000',
});

interface SearchAnswer {
  content: ApiEvent[];
  totalElements: number;
  totalElementsExact: boolean;
  nextCursor: string | null;
  number: number;
  size: number;
}

async function search(query: string): Promise<SearchAnswer> {
  const res = await svc.request(`/api/v1/events?${query}`);
  if (res.status !== 200) throw new Error(`GET ?${query}: ${res.status} ${await res.text()}`);
  return (await res.json()) as SearchAnswer;
}

async function post(items: unknown[]): Promise<string[]> {
  const res = await svc.request('/api/v1/events/batch', { json: items });
  const body = (await res.json()) as { accepted: number; results: { eventId: string }[] };
  if (body.accepted !== items.length) throw new Error(`batch: ${JSON.stringify(body)}`);
  return body.results.map((r) => r.eventId);
}

// 48 events one minute apart, ending two minutes ago, across sources, severities, types, users,
// sessions, tags and metadata; `seeded[i]` keeps each one's fields with its eventId.
const END = Date.now() - 120_000;
const SOURCES = ['checkout', 'search', 'auth'];
const SEVERITIES = ['INFO', 'WARNING', 'ERROR', 'CRITICAL'];
const TYPES = ['checkout.started', 'checkout.paid', 'search.performed', 'auth.login'];
const seedItems = Array.from({ length: 48 }, (_, i) => ({
  eventType: TYPES[i % 4] as string,
  source: SOURCES[i % 3] as string,
  severity: SEVERITIES[(i >> 1) % 4] as string,
  timestamp: new Date(END - (47 - i) * 60_000).toISOString(),
  userId: i % 5 === 0 ? `user-${i % 2}` : null,
  sessionId: i % 7 === 0 ? 'sess-7' : null,
  tags: i % 6 === 0 ? { region: 'eu', tier: `t${i % 4}` } : {},
  metadata: { order: { total: i % 3 === 0 ? 5 : '5x', paid: i % 2 === 0 }, note: `Note-${i}` },
}));
const seedIds = await post(seedItems);
const seeded = seedItems.map((e, i) => ({ ...e, eventId: seedIds[i] as string }));
const SEED_FROM = new Date(END - 47 * 60_000).toISOString();
const SEED_TO = new Date(END + 1).toISOString();
const inSeed = `from=${encodeURIComponent(SEED_FROM)}&to=${encodeURIComponent(SEED_TO)}`;

/** The seeded events `keep` selects, newest first (the API's order: ids follow time here). */
const expected = (keep: (e: (typeof seeded)[number], i: number) => boolean): string[] =>
  seeded
    .filter(keep)
    .reverse()
    .map((e) => e.eventId);

void t.test('each filter alone, and combined, selects exactly the matching events', async (t) => {
  const cases: Array<[string, (e: (typeof seeded)[number], i: number) => boolean]> = [
    [inSeed, () => true],
    [
      `from=${Date.parse(seeded[40]!.timestamp)}&${'to=' + encodeURIComponent(SEED_TO)}`,
      (_, i) => i >= 40,
    ],
    ['eventType=checkout.paid', (e) => e.eventType === 'checkout.paid'],
    ['eventType=checkout.*', (e) => e.eventType.startsWith('checkout.')],
    ['eventType=auth*', (e) => e.eventType.startsWith('auth')],
    [`source=search&${inSeed}`, (e) => e.source === 'search'],
    [`severity=ERROR&${inSeed}`, (e) => e.severity === 'ERROR'],
    [`severity=ERROR,WARN&${inSeed}`, (e) => e.severity === 'ERROR' || e.severity === 'WARNING'],
    [`severity=INFO&severity=CRITICAL&${inSeed}`, (e) => ['INFO', 'CRITICAL'].includes(e.severity)],
    ['userId=user-0', (e) => e.userId === 'user-0'],
    ['sessionId=sess-7', (e) => e.sessionId === 'sess-7'],
    ['tag.region=eu', (e) => e.tags.region === 'eu'],
    ['tag.region=eu&tag.tier=t2', (e) => e.tags.region === 'eu' && e.tags.tier === 't2'],
    [`metadata.order.total=5&${inSeed}`, (e) => e.metadata.order.total === 5],
    [`metadata.order.total=5x&${inSeed}`, (e) => e.metadata.order.total === '5x'],
    [`metadata.order.paid=true&${inSeed}`, (e) => e.metadata.order.paid],
    [`q=PERFORM&${inSeed}`, (e) => e.eventType.includes('perform')],
    [`q=heck&${inSeed}`, (e) => e.eventType.includes('heck') || e.source.includes('heck')],
    ['q=note-17&qField=metadata', (e) => e.metadata.note === 'Note-17'],
    ['q=user-1&qField=userId', (e) => e.userId === 'user-1'],
    ['q=tier&qField=tags', (e) => 'tier' in e.tags],
    [
      `source=checkout&severity=ERROR,CRITICAL&from=${encodeURIComponent(seeded[30]!.timestamp)}&to=${encodeURIComponent(SEED_TO)}`,
      (e, i) => e.source === 'checkout' && ['ERROR', 'CRITICAL'].includes(e.severity) && i >= 30,
    ],
  ];
  for (const [query, keep] of cases) {
    const want = expected(keep);
    t.ok(want.length > 0, `${query}: the seed has matches`);
    const page = await search(`${query}&size=100`);
    t.same(
      page.content.map((e) => e.eventId),
      want,
      `${query}: exactly the matching events, newest first`,
    );
    t.equal(page.totalElements, want.length, `${query}: total`);
    t.equal(page.totalElementsExact, true, `${query}: a total under 1,000 is counted: exact`);
    t.equal(page.nextCursor, null, `${query}: one page holds them all`);
    // The first page counts its total; the last and one past the end know it from their rows.
    const last = Math.ceil(want.length / 2) - 1;
    for (const n of new Set([0, last, last + 5])) {
      const paged = await search(`${query}&size=2&page=${n}`);
      t.equal(paged.totalElements, want.length, `${query}: the total on page ${n} of size 2`);
      t.equal(paged.totalElementsExact, true, `${query}: exact on page ${n} of size 2`);
    }
  }
  const received = await search(`timeField=receivedAt&from=${Date.now() - 3_600_000}&source=auth`);
  t.equal(received.totalElements, 16, 'timeField=receivedAt: every seeded event arrived recently');
});

void t.test('page and size still work with filters; offsets and cursors agree', async (t) => {
  const first = await search(`${inSeed}&size=10`);
  const second = await search(`${inSeed}&size=10&page=1`);
  const byCursor = await search(`${inSeed}&size=10&cursor=${first.nextCursor ?? ''}`);
  t.same(
    byCursor.content.map((e) => e.eventId),
    second.content.map((e) => e.eventId),
  );
  t.equal(second.number, 1);
  t.same(
    first.content.map((e) => e.eventId),
    expected(() => true).slice(0, 10),
  );
});

void t.test('a deep result by cursor: no duplicate, no gap, while new events arrive', async (t) => {
  const base = Date.now() - 3 * 3_600_000;
  // 250 events on 125 distinct milliseconds: pairs share a timestamp, the id breaks the tie.
  const deepItems = Array.from({ length: 250 }, (_, i) => ({
    eventType: 'deep.item',
    source: 'deep',
    timestamp: new Date(base + Math.floor(i / 2) * 1000).toISOString(),
  }));
  const deepIds: string[] = [];
  for (let i = 0; i < deepItems.length; i += 100)
    deepIds.push(...(await post(deepItems.slice(i, i + 100))));
  const want = deepItems
    .map((e, i) => ({
      ts: Date.parse(e.timestamp),
      id: Number(deepIds[i]!.slice(4)),
      eventId: deepIds[i]!,
    }))
    .sort((a, b) => b.ts - a.ts || b.id - a.id)
    .map((e) => e.eventId);

  // Each walk's arrivals are older than nothing: the next walk starts with them, newest first.
  let arrived: string[] = [];
  for (const query of ['eventType=deep.item', 'eventType=deep.*&source=deep']) {
    const present = [...arrived].reverse().concat(want);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await search(`${query}&size=7${cursor === null ? '' : `&cursor=${cursor}`}`);
      seen.push(...page.content.map((e) => e.eventId));
      cursor = page.nextCursor;
      pages++;
      // Newer matches arrive between pages: they sort before the cursor, so never show up.
      arrived = arrived.concat(await post([{ eventType: 'deep.item', source: 'deep' }]));
    } while (cursor !== null && pages < 100);
    t.same(seen, present, `${query}: every event once, in order`);
    t.equal(pages, Math.ceil(present.length / 7), `${query}: every page`);
  }
});

void t.test('every bad filter answers 400 naming it', async (t) => {
  const bad: Array<[string, string]> = [
    ['from=yesterday', 'from'],
    ['to=2026-13-45T00:00:00Z', 'to'],
    ['from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'to'],
    ['timeField=createdAt', 'timeField'],
    ['eventType=', 'eventType'],
    ['eventType=a*b*', 'eventType'],
    [`source=${'s'.repeat(256)}`, 'source'],
    ['severity=LOUD', 'severity'],
    ['severity=ERROR,', 'severity'],
    ['userId=', 'userId'],
    ['sessionId=', 'sessionId'],
    ['tag.=x', 'tag.'],
    ['tag.a=1&tag.a=2', 'tag.a'],
    ['metadata.a..b=1', 'metadata.a..b'],
    ['metadata.a.b.c.d.e.f.g.h.i=1', 'metadata.a.b.c.d.e.f.g.h.i'],
    ['q=', 'q'],
    [`q=${'x'.repeat(201)}`, 'q'],
    ['q=a&qField=everything', 'qField'],
    ['qField=source', 'qField'],
    ['source=a&source=b', 'source'],
    ['cursor=not-a-cursor!', 'cursor'],
    ['cursor=' + Buffer.from('12:ab').toString('base64url'), 'cursor'],
    ['page=-1', 'page'],
    ['size=0', 'size'],
    ['source=checkout&page=1000&size=100', 'page'],
  ];
  for (const [query, param] of bad) {
    const res = await svc.request(`/api/v1/events?${query}`);
    await expectError(t, res, 400, 'VALIDATION_FAILED', [param]);
  }
  for (const [path, param] of [
    ['/api/v1/events/histogram?buckets=501', 'buckets'],
    ['/api/v1/events/histogram?severity=LOUD', 'severity'],
    ['/api/v1/events/export?format=xml', 'format'],
    ['/api/v1/events/export?limit=0', 'limit'],
    ['/api/v1/events/export?from=soon', 'from'],
  ] as const) {
    await expectError(t, await svc.request(path), 400, 'VALIDATION_FAILED', [param]);
  }
});

void t.test('the histogram counts the matches per bucket', async (t) => {
  const from = Date.parse(SEED_FROM);
  const res = await svc.request(
    `/api/v1/events/histogram?source=checkout&from=${from}&to=${from + 48 * 60_000}&buckets=8`,
  );
  t.equal(res.status, 200);
  const body = (await res.json()) as {
    from: string;
    bucketMs: number;
    buckets: { start: string; count: number }[];
  };
  t.equal(body.bucketMs, 6 * 60_000, 'six minutes a bucket');
  t.equal(body.buckets.length, 8);
  t.equal(body.buckets[1]?.start, new Date(from + 6 * 60_000).toISOString());
  const want = Array.from(
    { length: 8 },
    (_, b) => seeded.filter((e, i) => e.source === 'checkout' && Math.floor(i / 6) === b).length,
  );
  t.same(
    body.buckets.map((b) => b.count),
    want,
    'each bucket counts its own minutes',
  );
});

void t.test('read scope: an ingest key reads no search, histogram or export', async (t) => {
  const res = await svc.request('/api/v1/keys', { json: { name: 'ingest only', scope: 'ingest' } });
  const { key } = (await res.json()) as { key: string };
  for (const path of [
    '/api/v1/events?source=a',
    '/api/v1/events/histogram',
    '/api/v1/events/export',
  ]) {
    await expectError(t, await svc.request(path, { headers: keyHeaders(key) }), 403, 'FORBIDDEN');
  }
  const read = await svc.request('/api/v1/keys', { json: { name: 'reader', scope: 'read' } });
  const reader = (await read.json()) as { key: string };
  const ok = await svc.request('/api/v1/events/export?source=auth', {
    headers: keyHeaders(reader.key),
  });
  t.equal(ok.status, 200, 'a read key exports');
  await ok.text();
});

/** The lines of an export, read by a client that pauses, then takes one chunk at a time. */
function slowRead(path: string): Promise<{ status: number; type: string; lines: string[] }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port: svc.service.port, path, headers: keyHeaders() },
      (res) => {
        res.pause();
        let text = '';
        res.setEncoding('utf8');
        setTimeout(() => {
          res.on('data', (chunk: string) => {
            text += chunk;
            res.pause();
            setImmediate(() => res.resume());
          });
          res.resume();
        }, 200);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type']),
            lines: text.split('\n').filter((l) => l !== ''),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

void t.test('export: NDJSON and CSV of the same filters, with a summary line', async (t) => {
  const want = expected((e) => e.eventType.startsWith('checkout.'));
  const nd = await slowRead('/api/v1/events/export?eventType=checkout.*');
  t.equal(nd.status, 200);
  t.match(nd.type, /application\/x-ndjson/);
  const rows = nd.lines.slice(0, -1).map((l) => JSON.parse(l) as ApiEvent);
  t.same(
    rows.map((r) => r.eventId),
    want,
    'every match, newest first, in the Event shape',
  );
  t.same(JSON.parse(nd.lines.at(-1) ?? ''), {
    // The default limit (100,000) reduced to EVENT_EXPORT_MAX_ROWS.
    exportSummary: { rows: want.length, limit: EXPORT_CAP, truncated: false, complete: true },
  });

  const csv = await slowRead('/api/v1/events/export?eventType=checkout.*&format=csv&limit=5');
  t.match(csv.type, /text\/csv/);
  t.match(
    csv.lines[0],
    /^eventId,eventType,timestamp,source,userId,sessionId,severity,tags,metadata,/,
  );
  t.same(
    csv.lines.slice(1, -1).map((l) => l.split(',')[0]),
    want.slice(0, 5),
    'the limit: the first five matches',
  );
  t.match(csv.lines.at(-1), /^# exportSummary rows=5 limit=5 truncated=true complete=true$/);
});

void t.test(
  'more than 1,000 matches: an estimated total; a capped export read slowly',
  async (t) => {
    // Written straight into the table: 10,050 INFO events of source `bulk` three days ago.
    const at = Date.now() - 3 * 86_400_000;
    await svc.db.sql`
    INSERT INTO events (event_type, ts, source, severity, received_at, processing_latency_ms)
    SELECT 'bulk.row', to_timestamp((${at}::float8 + g) / 1000), 'bulk', 'INFO', now(), 0
    FROM generate_series(1, 10050) g`;
    const page = await search('source=bulk&size=5');
    t.equal(page.totalElementsExact, false, 'past 1,000 matches the total is an estimate');
    t.ok(page.totalElements > 1_000, `the estimate is above 1,000 (${page.totalElements})`);
    const small = await search('source=bulk&size=5&eventType=bulk.row&q=nothing-matches');
    t.equal(small.totalElementsExact, true);
    t.equal(small.totalElements, 0);

    const out = await slowRead('/api/v1/events/export?source=bulk&limit=50000');
    const rows = out.lines.slice(0, -1).map((l) => (JSON.parse(l) as ApiEvent).id);
    t.equal(rows.length, EXPORT_CAP, 'EVENT_EXPORT_MAX_ROWS caps the export');
    t.equal(new Set(rows).size, rows.length, 'no row twice');
    t.ok(
      rows.every((id, i) => i === 0 || id < (rows[i - 1] as number)),
      'newest first',
    );
    t.same(JSON.parse(out.lines.at(-1) ?? ''), {
      exportSummary: { rows: EXPORT_CAP, limit: EXPORT_CAP, truncated: true, complete: true },
    });
  },
);

/** Starts an export, reads its first chunk, then drops the connection. */
function abandonExport(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port: svc.service.port, path, headers: keyHeaders() },
      (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET') reject(error);
    });
  });
}

void t.test('exports the client leaves midway give their read slot back', async (t) => {
  // EVENT_PAGES_MAX_PER_KEY is 4: six abandoned exports would exhaust it if a slot leaked.
  for (let i = 0; i < 6; i++) await abandonExport('/api/v1/events/export?source=bulk');
  let answered = 0;
  for (let attempt = 0; attempt < 200 && answered === 0; attempt++) {
    const res = await svc.request('/api/v1/events?source=bulk&size=1');
    await res.text();
    if (res.status === 200) answered++;
    // A slot comes back once its last read has ended: wait for that, not for a time.
    else await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.equal(answered, 1, 'a search still gets a slot');
  const full = await slowRead('/api/v1/events/export?source=bulk&limit=3');
  t.equal(full.lines.length, 4, 'and an export runs to its summary');
});
