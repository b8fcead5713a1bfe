// Deep pages (DESIGN 3): past offset 5,000 the repository finds a page by walking the hour and
// second counts (events-repository.ts pageByCounts) instead of OFFSET. Over 6,600 events stored
// through the batch endpoint, with back-dated timestamps spread over hours, seconds and
// milliseconds (many ties, some before 1970), every deep page must equal the order this test
// computes itself: timestamp descending, then id descending.
import t from 'tap';
import { idOf, readAck, readBatch, readPage, type EventPage } from '../support/events.ts';
import { startTestService } from '../support/service.ts';

const svc = await startTestService(t);

/** Deterministic pseudo-random numbers (mulberry32), so a failure can be replayed. */
const random = (() => {
  let seed = 0x5eed;
  return (): number => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
})();
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-20T12:00:00.000Z');

/** Back-dated by whole hours, a few seconds and a few milliseconds: ties on purpose. */
function timestampOf(): number {
  const r = random();
  if (r < 0.01) return Date.parse('1969-12-31T23:59:58.000Z') + pick([0, 1, 999, 1000, 1500]);
  if (r < 0.02) return NOW - pick([0, 1, 2]) * HOUR - pick([0, 1]); // on and just before an hour
  return (
    NOW -
    pick([1, 2, 3, 4, 5, 6]) * HOUR -
    pick([0, 1, 2, 7, 30, 59, 600, 3599]) * 1000 -
    pick([0, 0, 1, 500, 999])
  );
}

interface Sent {
  readonly id: number;
  readonly ts: number;
  readonly type: string;
}

const TOTAL = 6600;
const sent: Sent[] = [];
for (let start = 0; start < TOTAL; start += 1000) {
  const items = Array.from({ length: Math.min(1000, TOTAL - start) }, (_, k) => ({
    eventType: (start + k) % 8 === 0 ? 'deep.b' : 'deep.a',
    source: 'deep-pages',
    timestamp: new Date(timestampOf()).toISOString(),
  }));
  const res = await svc.request('/api/v1/events/batch', { json: items });
  const result = await readBatch(res);
  if (result.accepted !== items.length) throw new Error(`batch at ${start} not fully accepted`);
  result.results.forEach((r, k) => {
    if (r.status !== 'accepted') throw new Error('rejected');
    sent.push({
      id: idOf(r.eventId),
      ts: Date.parse(r.timestamp),
      type: items[k]?.eventType ?? '',
    });
  });
}

const order = (events: readonly Sent[]): number[] =>
  [...events].sort((a, b) => b.ts - a.ts || b.id - a.id).map((e) => e.id);

const getPage = async (path: string): Promise<EventPage> => {
  const res = await svc.request(path);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return readPage(res);
};

async function walk(path: string, size: number, from: number, to: number): Promise<number[]> {
  const ids: number[] = [];
  for (let p = from; p < to; p++) {
    const page = await getPage(`${path}?page=${p}&size=${size}`);
    ids.push(...page.content.map((e) => e.id));
  }
  return ids;
}

void t.test('the data: more than 5,000 rows, with ties and several hours', async (t) => {
  const expected = order(sent);
  const page = await getPage('/api/v1/events?size=1');
  t.equal(page.totalElements, TOTAL);
  t.equal(expected.length, TOTAL);
  const distinctTimes = new Set(sent.map((e) => e.ts)).size;
  t.ok(distinctTimes < TOTAL / 4, `${distinctTimes} distinct timestamps: many ties`);
  t.ok(new Set(sent.map((e) => Math.floor(e.ts / HOUR))).size >= 6, 'spread over hours');
  t.ok(
    sent.some((e) => e.ts < 0),
    'some before 1970',
  );
});

void t.test('every page of 100, shallow and deep, in order', async (t) => {
  const ids = await walk('/api/v1/events', 100, 0, TOTAL / 100);
  t.same(ids, order(sent));
});

void t.test('deep pages of an odd size straddle seconds and hours', async (t) => {
  const expected = order(sent);
  const size = 37;
  const first = Math.floor(5000 / size);
  const last = Math.ceil(TOTAL / size);
  for (let p = first; p < last; p++) {
    const page = await getPage(`/api/v1/events?page=${p}&size=${size}`);
    t.same(
      page.content.map((e) => e.id),
      expected.slice(p * size, (p + 1) * size),
      `page ${p} (offset ${p * size})`,
    );
    t.match(page, { number: p, totalElements: TOTAL, totalPages: last, last: p === last - 1 });
  }
});

void t.test('single-event pages at offsets around and past 5,000', async (t) => {
  const expected = order(sent);
  const offsets = [4999, 5000, 5001, 5002, TOTAL - 2, TOTAL - 1];
  for (let i = 0; i < 30; i++) offsets.push(5001 + Math.floor(random() * (TOTAL - 5001)));
  for (const offset of offsets) {
    const page = await getPage(`/api/v1/events?page=${offset}&size=1`);
    t.same(
      page.content.map((e) => e.id),
      [expected[offset]],
      `offset ${offset}`,
    );
  }
  for (const path of [
    `/api/v1/events?page=${TOTAL}&size=1`,
    `/api/v1/events?page=${TOTAL / 100}&size=100`,
  ]) {
    const page = await getPage(path);
    t.match(
      page,
      { content: [], totalElements: TOTAL, empty: true, last: true, first: false },
      path,
    );
  }
});

void t.test('deep pages by type', async (t) => {
  const a = order(sent.filter((e) => e.type === 'deep.a'));
  const b = order(sent.filter((e) => e.type === 'deep.b'));
  t.ok(a.length > 5000, `${a.length} events of deep.a`);
  t.same(await walk('/api/v1/events/type/deep.a', 100, 0, Math.ceil(a.length / 100)), a);
  t.same(await walk('/api/v1/events/type/deep.b', 100, 0, Math.ceil(b.length / 100)), b);
  for (const offset of [5001, 5432, a.length - 1]) {
    const page = await getPage(`/api/v1/events/type/deep.a?page=${offset}&size=1`);
    t.same(
      page.content.map((e) => e.id),
      [a[offset]],
      `deep.a offset ${offset}`,
    );
    t.equal(page.totalElements, a.length);
  }
});

void t.test('a back-dated event arriving later moves the deep pages by one', async (t) => {
  const expected = order(sent);
  const middle = sent.find((e) => e.id === expected[5500]);
  if (middle === undefined) throw new Error('no event at offset 5500');
  const res = await svc.request('/api/v1/events', {
    json: { eventType: 'deep.a', source: 'late', timestamp: new Date(middle.ts).toISOString() },
  });
  const ack = await readAck(res);
  sent.push({ id: idOf(ack.eventId), ts: middle.ts, type: 'deep.a' });
  const now = order(sent);
  t.ok(now.indexOf(idOf(ack.eventId)) > 5000, 'it lands on a deep page');
  const size = 50;
  const from = Math.floor(5000 / size);
  t.same(
    await walk('/api/v1/events', size, from, Math.ceil(now.length / size)),
    now.slice(from * size),
  );
});

void t.test('the same pages with their counts pending and once folded', async (t) => {
  const check = async (label: string): Promise<void> => {
    const all = order(sent);
    const a = order(sent.filter((e) => e.type === 'deep.a'));
    for (const offset of [5001, 5500, all.length - 1]) {
      const page = await getPage(`/api/v1/events?page=${offset}&size=1`);
      t.same(
        page.content.map((e) => e.id),
        [all[offset]],
        `${label}: offset ${offset}`,
      );
      t.equal(page.totalElements, all.length, `${label}: total`);
    }
    const page = await getPage(`/api/v1/events/type/deep.a?page=5432&size=1`);
    t.same(
      page.content.map((e) => e.id),
      [a[5432]],
      `${label}: deep.a offset 5432`,
    );
    t.equal(page.totalElements, a.length, `${label}: deep.a total`);
  };
  const pending = async (): Promise<number> => {
    const [row] = await svc.db.sql<{ n: number }[]>`
      SELECT count(*)::int4 AS n FROM event_count_deltas`;
    return row?.n ?? 0;
  };
  // A fold writes event_counts: holding that table's EXCLUSIVE lock (reads still pass) keeps the
  // counts of the events posted now pending while the pages are read.
  await svc.db.sql.begin(async (tx) => {
    await tx`LOCK TABLE event_counts IN EXCLUSIVE MODE`;
    const middle = sent.find((e) => e.id === order(sent)[5200]);
    if (middle === undefined) throw new Error('no event at offset 5200');
    for (let i = 0; i < 3; i++) {
      const json = { eventType: 'deep.a', source: 'pending', timestamp: new Date(middle.ts) };
      const ack = await readAck(await svc.request('/api/v1/events', { json }));
      sent.push({ id: idOf(ack.eventId), ts: middle.ts, type: 'deep.a' });
    }
    t.ok((await pending()) > 0, 'counts are pending');
    await check('pending');
  });
  while ((await pending()) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  await check('folded');
});
