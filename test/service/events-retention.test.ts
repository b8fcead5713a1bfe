// EVENTS_RETENTION_DAYS (issue 23): the retention job, on a clock the test moves a day at a time,
// drops whole daily partitions past the retention. Before and after each drop, GET
// /api/v1/events answers exactly the events kept (page 0, a deep page found through the counts,
// by type), its totals count exactly those, GET by id finds an event in any kept partition (and one
// moved out of the DEFAULT partition) and not a dropped one, the count rows of dropped days are
// pruned, and every event acknowledged while a drop runs is stored.
import t from 'tap';
import { DAY_MS, dayStart, partitionName } from '../../src/domain/event-partitions.ts';
import {
  idOf,
  readBatch,
  readEvent,
  readPage,
  stored,
  type Assert,
  type EventPage,
} from '../support/events.ts';
import { startTestService } from '../support/service.ts';

const HOUR = 3_600_000;
const T0 = dayStart(Date.now());
let clock = T0 + 12 * HOUR;
let fire = (): void => {};
const svc = await startTestService(
  t,
  // The injected clock runs 4 days ahead of the real one, and so do the timestamps sent.
  { EVENTS_RETENTION_DAYS: '2', ALERTS_RETENTION_DAYS: '3', EVENTS_MAX_FUTURE_HOURS: '168' },
  {
    hooks: {
      retentionTimers: {
        setInterval: (callback) => {
          fire = callback;
          return 1;
        },
        clearInterval: () => {},
      },
      retentionClock: () => clock,
    },
  },
);

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within 30 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const partitions = async (): Promise<string[]> =>
  (
    await svc.db.sql<{ name: string }[]>`
      SELECT c.relname::text AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'events'::regclass ORDER BY 1`
  ).map((r) => r.name);

/** Count rows (folded) of time before kept_from: none once a run has pruned them. */
const staleCounts = async (): Promise<number> => {
  const [row] = await svc.db.sql<{ n: number }[]>`
    SELECT count(*)::int4 AS n FROM event_counts, event_retention
    WHERE isfinite(kept_from)
      AND bucket * CASE granularity WHEN 'd' THEN 86400 WHEN 'h' THEN 3600 ELSE 1 END
          < extract(epoch FROM kept_from)`;
  return row?.n ?? 0;
};

// The start-up run made the partitions two days ahead of the clock.
await until('partitions ahead', async () =>
  (await partitions()).includes(partitionName(T0 + 2 * DAY_MS)),
);
if (dayStart(Date.now()) !== T0) throw new Error('the test ran across midnight UTC: run it again');

interface Sent {
  readonly id: number;
  readonly ts: number;
  readonly type: string;
}

/** The i-th event of a day: on its first and last millisecond, else spread over hours and seconds. */
const within = (day: number, i: number): number => {
  if (i % 20 === 0) return day;
  if (i % 20 === 1) return day + DAY_MS - 1;
  return day + ((i * 7) % 24) * HOUR + ((i * 13) % 4) * 1000;
};

const sent: Sent[] = [];
async function send(stamps: readonly number[]): Promise<void> {
  for (let start = 0; start < stamps.length; start += 1000) {
    const items = stamps.slice(start, start + 1000).map((ts, k) => ({
      eventType: (start + k) % 5 === 0 ? 'ret.b' : 'ret.a',
      source: 'retention',
      timestamp: new Date(ts).toISOString(),
    }));
    const result = await readBatch(await svc.request('/api/v1/events/batch', { json: items }));
    result.results.forEach((r, k) => {
      if (r.status !== 'accepted') throw new Error(`rejected: ${JSON.stringify(r)}`);
      sent.push({
        id: idOf(r.eventId),
        ts: Date.parse(r.timestamp),
        type: items[k]?.eventType ?? '',
      });
    });
  }
}

// Four days of 2,600 events (today's partition, two ahead, then the DEFAULT partition), and some
// late ones older than every day partition (in events_before).
await send([
  ...Array.from({ length: 30 }, (_, i) => within(T0 - 5 * DAY_MS, i)),
  ...[0, 1, 2, 3].flatMap((d) =>
    Array.from({ length: 2600 }, (_, i) => within(T0 + d * DAY_MS, i)),
  ),
]);

const expectedIds = (kept: number, type: string | null): number[] =>
  sent
    .filter((e) => e.ts >= kept && (type === null || e.type === type))
    .sort((a, b) => b.ts - a.ts || b.id - a.id)
    .map((e) => e.id);

async function page(path: string): Promise<EventPage> {
  const res = await svc.request(path);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return readPage(res);
}

/** Page 0, a deep page (offset past 5,000) and pages of each type: exact ids and totals. */
async function pagesExact(t: Assert, kept: number): Promise<void> {
  const all = expectedIds(kept, null);
  const ofA = expectedIds(kept, 'ret.a');
  const ofB = expectedIds(kept, 'ret.b');
  const size = 50;
  const deep = Math.floor((all.length - 20) / size);
  t.equal(deep * size > 5000, true, `page ${deep} is deep (offset ${deep * size})`);
  // Deep too until the second drop (offsets 8,300 and 6,200, then 4,150).
  const deepA = Math.floor((ofA.length - 20) / size);
  for (const [path, ids, p] of [
    ['/api/v1/events', all, 0],
    ['/api/v1/events', all, deep],
    ['/api/v1/events/type/ret.a', ofA, deepA],
    ['/api/v1/events/type/ret.b', ofB, 0],
    ['/api/v1/events/type/ret.b', ofB, 5],
  ] as const) {
    const got = await page(`${path}?page=${p}&size=${size}`);
    t.equal(got.totalElements, ids.length, `${path} total`);
    t.same(
      got.content.map((e) => e.id),
      ids.slice(p * size, (p + 1) * size),
      `${path} page ${p}`,
    );
  }
}

async function byId(t: Assert, e: Sent, found: boolean): Promise<void> {
  const res = await svc.request(`/api/v1/events/evt_${e.id}`);
  t.equal(res.status, found ? 200 : 404, `evt_${e.id} of ${new Date(e.ts).toISOString()}`);
  if (found) t.equal(Date.parse((await readEvent(res)).timestamp), e.ts, 'its own event');
  else await res.text();
}

const firstOf = (day: number): Sent => sent.find((e) => e.ts >= day && e.ts < day + DAY_MS) as Sent;
const lateOne = sent[0] as Sent;

/** Pending page counts: the storage worker folds them into event_counts within about a second. */
const pendingCounts = async (): Promise<number> => {
  const [row] = await svc.db.sql<{ n: number }[]>`
    SELECT count(*)::int4 AS n FROM event_count_deltas`;
  return row?.n ?? 0;
};

/**
 * One run of the job at `at`, waited for through what it leaves in the tables. It starts once the
 * sent events' counts are folded: a fold landing after the prune writes the dropped day's count
 * rows again, for the next run to prune (readers leave them out meanwhile).
 */
async function runAt(at: number, gone: string): Promise<void> {
  await until('pending counts folded', async () => (await pendingCounts()) === 0);
  clock = at;
  fire();
  await until(`${gone} dropped and counts pruned`, async () => {
    const names = await partitions();
    return !names.includes(gone) && (await staleCounts()) === 0;
  });
}

void t.test('before any drop: every event paged, counted and found by id', async (t) => {
  await pagesExact(t, -Infinity);
  for (const d of [0, 1, 2, 3]) await byId(t, firstOf(T0 + d * DAY_MS), true);
  await byId(t, lateOne, true);
  const rows = await svc.db.sql<{ part: string; n: number }[]>`
    SELECT tableoid::regclass::text AS part, count(*)::int4 AS n FROM events GROUP BY 1 ORDER BY 1`;
  t.same(
    rows.map((r) => [r.part, r.n]),
    [
      ['events_before', 30],
      ['events_default', 2600],
      [partitionName(T0), 2600],
      [partitionName(T0 + DAY_MS), 2600],
      [partitionName(T0 + 2 * DAY_MS), 2600],
    ],
    'each day in its partition, the day past them in DEFAULT',
  );
});

void t.test('on day 3, the days before day 1 go: pages, totals and lookups follow', async (t) => {
  await runAt(T0 + 3 * DAY_MS + HOUR, partitionName(T0));
  const names = await partitions();
  t.notOk(names.includes(partitionName(T0)), 'day 0 dropped');
  for (const d of [1, 2, 3, 4, 5]) t.ok(names.includes(partitionName(T0 + d * DAY_MS)), `day ${d}`);
  const [kept] = await svc.db.sql<{ ms: number }[]>`
    SELECT (extract(epoch FROM kept_from) * 1000)::float8 AS ms FROM event_retention`;
  t.equal(kept?.ms, T0 + DAY_MS, 'events are kept from day 1 on');
  await pagesExact(t, T0 + DAY_MS);
  await byId(t, firstOf(T0), false);
  await byId(t, lateOne, false);
  for (const d of [1, 2, 3]) await byId(t, firstOf(T0 + d * DAY_MS), true);
  const [moved] = await svc.db.sql<{ n: number }[]>`
    SELECT count(*)::int4 AS n FROM events_default`;
  t.equal(moved?.n, 0, 'day 3 moved out of DEFAULT into its partition');
  t.same(await stored(svc.db), { rows: 7800, counted: 7800 }, 'rows and counts agree');
});

void t.test('on day 4 day 1 goes, while events keep coming: each 202 stored', async (t) => {
  clock = T0 + 4 * DAY_MS + HOUR;
  const during = Promise.all(
    Array.from({ length: 40 }, async (_, k) => {
      const ts = T0 + 3 * DAY_MS + 5 * HOUR + k;
      const res = await svc.request('/api/v1/events', {
        json: { eventType: 'ret.a', source: 'during', timestamp: new Date(ts).toISOString() },
      });
      t.equal(res.status, 202, 'accepted');
      const ack = (await res.json()) as { eventId: string };
      sent.push({ id: idOf(ack.eventId), ts, type: 'ret.a' });
    }),
  );
  fire();
  await during;
  await until(
    'day 1 dropped',
    async () => !(await partitions()).includes(partitionName(T0 + DAY_MS)),
  );
  await until('counts pruned', async () => (await staleCounts()) === 0);
  await pagesExact(t, T0 + 2 * DAY_MS);
  await byId(t, firstOf(T0 + DAY_MS), false);
  for (const e of sent.slice(-40)) await byId(t, e, true);
  t.same(await stored(svc.db), { rows: 5240, counted: 5240 }, 'rows and counts agree');
});

void t.test(
  'ALERTS_RETENTION_DAYS: a resolved alert past it goes, a recent one stays',
  async (t) => {
    const insert = (triggered: number, resolved: number) =>
      svc.db.sql<{ id: string }[]>`
      INSERT INTO alerts (rule_id, rule_name, rule_version, severity, triggered_at,
                          matched_conditions, current_values, condition_text, message, state,
                          resolved_at, resolved_reason)
      VALUES (9999, 'gone', 1, 'LOW', to_timestamp(${triggered / 1000}::float8), '[]', '{}',
              'x', 'm', 'RESOLVED', to_timestamp(${resolved / 1000}::float8), 'test')
      RETURNING id::text`;
    const [old] = await insert(clock - 10 * DAY_MS, clock - 9 * DAY_MS);
    const [recent] = await insert(clock - 2 * DAY_MS, clock - DAY_MS);
    fire();
    await until('the old alert pruned', async () => {
      const [row] = await svc.db.sql<{ n: number }[]>`
      SELECT count(*)::int4 AS n FROM alerts WHERE id = ${old?.id ?? '0'}`;
      return row?.n === 0;
    });
    const res = await svc.request(`/api/v1/alerts/${recent?.id}`);
    t.equal(res.status, 200, 'the recent one is still there');
    await res.text();
  },
);
