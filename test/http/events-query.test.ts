// GET /api/v1/events, /type/{eventType} and /{eventId} (spec 2.4, 4.1, DESIGN 3): the page
// object, paging math and edge pages, ordering (timestamp desc, then id desc), size clamp,
// invalid parameters, lookups and their 404s.
import t from 'tap';
import {
  expectError,
  idOf,
  readBatch,
  readEvent,
  readPage,
  storedEvent,
  type EventPage,
} from '../support/events.ts';
import { startTestService } from '../support/service.ts';

const svc = await startTestService(t);

const SORTED = { sorted: true, unsorted: false, empty: false };

const get = async (path: string): Promise<EventPage> => {
  const res = await svc.request(path);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return readPage(res);
};

/** The page object spec 2.4 requires, apart from its content. */
const frame = (page: number, size: number, total: number, count: number) => ({
  pageable: {
    pageNumber: page,
    pageSize: size,
    sort: SORTED,
    offset: page * size,
    paged: true,
    unpaged: false,
  },
  totalElements: total,
  totalPages: Math.ceil(total / size),
  last: page >= Math.ceil(total / size) - 1,
  first: page === 0,
  size,
  number: page,
  numberOfElements: count,
  empty: count === 0,
  sort: SORTED,
});
/**
 * The spec's page object: GET /api/v1/events adds totalElementsExact and nextCursor (issue 34),
 * checked in test/service/events-search.test.ts.
 */
const withoutContent = (page: EventPage) => {
  const {
    content: _content,
    totalElementsExact: _exact,
    nextCursor: _cursor,
    ...rest
  } = page as EventPage & { totalElementsExact?: boolean; nextCursor?: string | null };
  return rest;
};

// Read before anything is stored; checked in the first subtest.
const emptyPages: [string, EventPage][] = [];
for (const path of ['/api/v1/events', '/api/v1/events/type/none'])
  emptyPages.push([path, await get(path)]);

// 130 events of three types over 43 distinct seconds (ties of up to four events on the same
// millisecond), sent in an order unrelated to their time: ids and timestamps disagree.
const TYPES = ['q.alpha', 'q.beta', 'q.gamma'] as const;
const BASE = Date.parse('2026-11-20T00:00:00.000Z');
const items = Array.from({ length: 130 }, (_, i) => ({
  eventType: TYPES[i % 3] as string,
  source: 'query-test',
  timestamp: new Date(BASE + ((i * 37) % 43) * 1000 + (i % 2) * 250).toISOString(),
  metadata: { i },
}));
const seeded = await readBatch(await svc.request('/api/v1/events/batch', { json: items }));
if (seeded.accepted !== items.length) throw new Error('seeding failed');
const all = seeded.results.map((r, i) => {
  if (r.status !== 'accepted') throw new Error('seeding failed');
  return { id: idOf(r.eventId), ts: Date.parse(r.timestamp), type: items[i]?.eventType };
});
const newestFirst = (list: typeof all): number[] =>
  [...list].sort((a, b) => b.ts - a.ts || b.id - a.id).map((e) => e.id);
const expected = newestFirst(all);

void t.test('an empty table: page 0 of 0, first and last', async (t) => {
  for (const [path, page] of emptyPages) {
    t.same(page.content, []);
    t.same(withoutContent(page), frame(0, 20, 0, 0), path);
  }
});

void t.test('defaults: page 0, size 20, newest first', async (t) => {
  const page = await get('/api/v1/events');
  t.same(withoutContent(page), frame(0, 20, 130, 20));
  t.same(
    page.content.map((e) => e.id),
    expected.slice(0, 20),
  );
  const first = page.content[0];
  t.same(first, await storedEvent(svc.db, first?.id ?? 0), 'items are the stored events');
});

void t.test(
  'walking every page gives every event once, in order, with the right flags',
  async (t) => {
    for (const size of [1, 3, 7, 20, 43, 100]) {
      const pages = Math.ceil(130 / size);
      const ids: number[] = [];
      for (let p = 0; p < pages; p++) {
        const page = await get(`/api/v1/events?page=${p}&size=${size}`);
        t.same(
          withoutContent(page),
          frame(p, size, 130, Math.min(size, 130 - p * size)),
          `size ${size} page ${p}`,
        );
        ids.push(...page.content.map((e) => e.id));
      }
      t.same(ids, expected, `size ${size}: (timestamp desc, id desc), stable across pages`);
    }
  },
);

void t.test('equal timestamps are ordered by id, descending', async (t) => {
  const page = await get('/api/v1/events?size=100');
  const ties = page.content.filter((e, i, list) => list[i + 1]?.timestamp === e.timestamp);
  t.ok(ties.length > 10, 'the data has ties');
  for (const [i, e] of page.content.entries()) {
    const next = page.content[i + 1];
    if (next === undefined) break;
    const order = Date.parse(e.timestamp) - Date.parse(next.timestamp) || e.id - next.id;
    t.ok(order > 0, `${e.eventId} before ${next.eventId}`);
  }
});

void t.test('a size above 100 is reduced to 100', async (t) => {
  for (const size of [101, 1000, 999999999]) {
    const page = await get(`/api/v1/events?size=${size}`);
    t.same(withoutContent(page), frame(0, 100, 130, 100), `size=${size}`);
    t.same(
      page.content.map((e) => e.id),
      expected.slice(0, 100),
    );
  }
  const second = await get('/api/v1/events?page=1&size=500');
  t.same(withoutContent(second), frame(1, 100, 130, 30));
  t.same(
    second.content.map((e) => e.id),
    expected.slice(100),
  );
});

void t.test('edge pages', async (t) => {
  const cases: readonly [string, number, number, number][] = [
    // query, page, size, elements
    ['page=6&size=20', 6, 20, 10], // last, partial
    ['page=12&size=10', 12, 10, 10], // last, full (130 = 13 x 10)
    ['page=13&size=10', 13, 10, 0], // just past the end
    ['page=7&size=20', 7, 20, 0],
    ['page=100000&size=100', 100000, 100, 0],
    ['page=129&size=1', 129, 1, 1],
    ['page=130&size=1', 130, 1, 0],
    ['size=130', 0, 100, 100],
  ];
  for (const [query, number, size, count] of cases) {
    const page = await get(`/api/v1/events?${query}`);
    t.same(withoutContent(page), frame(number, size, 130, count), query);
    t.same(
      page.content.map((e) => e.id),
      expected.slice(number * size, number * size + count),
      query,
    );
  }
});

void t.test('invalid page or size: 400 naming the parameter', async (t) => {
  const bad: readonly [string, readonly string[]][] = [
    ['page=-1', ['page']],
    ['page=1.5', ['page']],
    ['page=abc', ['page']],
    ['page=', ['page']],
    ['page=1e2', ['page']],
    ['page=0x10', ['page']],
    ['page=%201', ['page']],
    ['size=0', ['size']],
    ['size=-5', ['size']],
    ['size=2.5', ['size']],
    ['size=ten', ['size']],
    ['size=', ['size']],
    ['page=-1&size=0', ['page', 'size']],
  ];
  for (const path of ['/api/v1/events', '/api/v1/events/type/q.alpha']) {
    for (const [query, fields] of bad) {
      const res = await svc.request(`${path}?${query}`);
      await expectError(t, res, 400, 'VALIDATION_FAILED', fields);
    }
  }
});

void t.test('by type: only that type, same order and paging', async (t) => {
  for (const type of TYPES) {
    const mine = newestFirst(all.filter((e) => e.type === type));
    const ids: number[] = [];
    for (let p = 0; p * 7 < mine.length + 7; p++) {
      const page = await get(`/api/v1/events/type/${type}?page=${p}&size=7`);
      t.same(
        withoutContent(page),
        frame(p, 7, mine.length, Math.max(0, Math.min(7, mine.length - p * 7))),
      );
      t.ok(page.content.every((e) => e.eventType === type));
      ids.push(...page.content.map((e) => e.id));
    }
    t.same(ids, mine, type);
  }
  for (const other of ['q.alph', 'Q.ALPHA', 'q.alpha ', 'q']) {
    const page = await get(`/api/v1/events/type/${encodeURIComponent(other)}`);
    t.equal(page.totalElements, 0, `no prefix or case-insensitive match for '${other}'`);
  }
});

void t.test('by type: any characters, percent-encoded in the path', async (t) => {
  const type = 'odd type/with ? # % é 😀';
  const result = await readBatch(
    await svc.request('/api/v1/events/batch', { json: [{ eventType: type, source: 's' }] }),
  );
  const ack = result.results[0];
  if (ack?.status !== 'accepted') throw new Error('not accepted');
  const page = await get(`/api/v1/events/type/${encodeURIComponent(type)}`);
  t.same(
    page.content.map((e) => [e.eventId, e.eventType]),
    [[ack.eventId, type]],
  );
  const total = await get('/api/v1/events?size=1');
  t.equal(total.totalElements, 131, 'the overall total counts it too');
});

void t.test('GET by eventId returns the event; 404 with a JSON body otherwise', async (t) => {
  const id = expected[0] ?? 0;
  const res = await svc.request(`/api/v1/events/evt_${id}`);
  t.equal(res.status, 200);
  t.same(await readEvent(res), await storedEvent(svc.db, id));

  const unknown = Math.max(...expected) + 1000;
  for (const eventId of [
    `evt_${unknown}`,
    'evt_abc',
    '123',
    `${id}`,
    'evt_',
    'evt_0',
    `evt_0${id}`,
    'evt_-1',
    `EVT_${id}`,
    `evt_${id}.0`,
    `evt_${id}%20`,
    `evt_${id}x`,
    'evt_99999999999999999999',
    'evt_9223372036854775807',
  ]) {
    const res = await svc.request(`/api/v1/events/${eventId}`);
    const error = await expectError(t, res, 404, 'NOT_FOUND');
    t.match(error.message, /not found/i, eventId);
  }
});
