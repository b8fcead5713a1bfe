// Migration 1763840000016 on real PostgreSQL (issue 23): an events table of the old shape, with
// rows from before 1970 to the year 3000, becomes a table partitioned by ts without losing or
// changing a row; ids go on from the same sequence, each row sits in the partition of its time,
// the indexes are back under their names, and the primary key is (id, ts).
import t from 'tap';
import { dayStart, DAY_MS, partitionName } from '../../src/domain/event-partitions.ts';
import { migrateUp } from '../../src/db/migrate.ts';
import { createLogger } from '../../src/log.ts';
import { createDatabaseBefore, withMigrationGate } from '../support/database.ts';

// The schema as it was before this migration: every earlier one applied.
const { url, schema, sql } = await createDatabaseBefore(t, '1763840000016_events-partitioned.ts');

// Both read at the same day as the migration runs (a run across midnight UTC is told apart below).
const today = dayStart(Date.now());
const month = (ms: number): number => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};
const STAMPS = [
  Date.parse('1969-07-20T20:17:40.000Z'),
  Date.parse('2001-01-01T00:00:00.000Z'),
  today - 400 * DAY_MS,
  today - 40 * DAY_MS,
  month(today) - 1,
  today - 1,
  today,
  today + 5_000,
  today + DAY_MS - 1,
  today + DAY_MS,
  today + 30 * DAY_MS,
  Date.parse('3000-01-01T00:00:00.000Z'),
];

/** Every column as text: what must come back unchanged. */
const rows = () =>
  sql<{ id: string; row: string }[]>`
    SELECT id::text, (to_jsonb(e) - 'id')::text AS row FROM events e ORDER BY id`;

for (const [i, ms] of STAMPS.entries()) {
  await sql`
    INSERT INTO events (event_type, ts, source, user_id, session_id, severity, tags, metadata,
                        received_at, processing_latency_ms)
    VALUES (${`old.${i % 3}`}, to_timestamp(${ms / 1000}::float8), 'migrated', ${`u${i}`}, null,
            ${i % 2 === 0 ? 'INFO' : 'ERROR'}, ${sql.json({ n: String(i) })},
            ${sql.json({ deep: { i } })}, to_timestamp(${(ms + 7) / 1000}::float8), ${i})`;
}
const before = await rows();
const [last] = await sql<{ id: string }[]>`SELECT max(id)::text AS id FROM events`;

await withMigrationGate(url, () => migrateUp(url, schema, createLogger('warn', 'test')));
// The migration ran on another UTC day than `today` was read: its partitions would differ.
if (dayStart(Date.now()) !== today)
  throw new Error('the test ran across midnight UTC: run it again');

void t.test('every row is kept, column for column, under its id', async (t) => {
  t.same(await rows(), before);
});

void t.test('events is partitioned by range of ts, each row where its time falls', async (t) => {
  const [kind] = await sql<{ strategy: string; key: string }[]>`
    SELECT partstrat AS strategy, pg_get_partkeydef('events'::regclass) AS key
    FROM pg_partitioned_table WHERE partrelid = 'events'::regclass`;
  t.same(kind, { strategy: 'r', key: 'RANGE (ts)' });
  const placed = await sql<{ ms: number; part: string }[]>`
    SELECT (extract(epoch FROM ts) * 1000)::float8 AS ms, tableoid::regclass::text AS part
    FROM events ORDER BY ts`;
  // Years from the oldest row's (ten years back at most), months this year; BEFORE under them;
  // DEFAULT past today.
  const d = new Date(today);
  const year = (ms: number): number => Date.UTC(new Date(ms).getUTCFullYear(), 0, 1);
  const lo = year(Date.UTC(d.getUTCFullYear() - 10, d.getUTCMonth(), d.getUTCDate()));
  const expected = (ms: number): string => {
    if (ms >= today + DAY_MS) return 'events_default';
    if (ms >= today) return partitionName(today);
    if (ms < lo) return 'events_before';
    return partitionName(ms < year(today) ? year(ms) : month(ms));
  };
  t.same(
    placed.map((p) => [new Date(p.ms).toISOString(), p.part]),
    placed.map((p) => [new Date(p.ms).toISOString(), expected(p.ms)]),
  );
});

void t.test('ids go on from the same sequence, owned by the new table', async (t) => {
  const [row] = await sql<{ id: string; seq: string }[]>`
    INSERT INTO events (event_type, ts, source, severity, received_at, processing_latency_ms)
    VALUES ('after', now(), 'new', 'INFO', now(), 0)
    RETURNING id::text, pg_get_serial_sequence('events', 'id') AS seq`;
  t.equal(row?.id, String(Number(last?.id) + 1));
  t.equal(row?.seq, `${schema}.events_id_seq`);
});

void t.test('the indexes are back, the primary key holds the partition key', async (t) => {
  const indexes = await sql<{ name: string; def: string }[]>`
    SELECT indexname AS name, regexp_replace(indexdef, '^.* USING ', '') AS def
    FROM pg_indexes WHERE schemaname = ${schema} AND tablename = 'events' ORDER BY 1`;
  t.same(
    indexes.map((i) => ({ ...i })),
    [
      { name: 'events_pkey', def: 'btree (id, ts)' },
      { name: 'events_received_id', def: 'btree (received_at, id)' },
      // The event search's (issue 34, a later migration: this file migrates every one up).
      {
        name: 'events_session_ts_id',
        def: 'btree (session_id, ts DESC, id DESC) WHERE (session_id IS NOT NULL)',
      },
      { name: 'events_severity_ts_id', def: 'btree (severity, ts DESC, id DESC)' },
      { name: 'events_source_ts_id', def: 'btree (source, ts DESC, id DESC)' },
      { name: 'events_ts_id', def: 'btree (ts DESC, id DESC)' },
      { name: 'events_type_ts_id', def: 'btree (event_type, ts DESC, id DESC)' },
      {
        name: 'events_user_ts_id',
        def: 'btree (user_id, ts DESC, id DESC) WHERE (user_id IS NOT NULL)',
      },
    ],
  );
  const [kept] = await sql<{ finite: boolean }[]>`
    SELECT isfinite(kept_from) AS finite FROM event_retention`;
  t.same(kept, { finite: false }, 'nothing is dropped yet: every event is kept');
});
