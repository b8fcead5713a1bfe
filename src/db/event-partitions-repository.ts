/**
 * @module Partition maintenance of `events` (storage workers, run by the retention job, never on
 * the ingest path): reads the partitions from the catalog, creates those planned ahead, drops
 * those past the retention, and prunes the count rows of dropped time in bounded chunks. DDL takes
 * no bind parameters: bounds are written as literals made here from numbers (isoLiteral), names
 * are identifiers escaped by postgres.js.
 */
import {
  BEFORE_PARTITION,
  planPartitions,
  type MaintenanceDone,
  type NewPartition,
  type RangePartition,
} from '../domain/event-partitions.ts';
import type { Sql, Tx } from './connect.ts';

/**
 * How long a maintenance statement waits for a lock. Creating and dropping partitions takes locks
 * that queue every insert behind them while they wait: a reader holding the table (a backtest's
 * query, say) makes the run give up after this long, and the next run tries again.
 */
const LOCK_TIMEOUT = "SET LOCAL lock_timeout = '1s'";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A timestamptz literal for DDL, from epoch ms (digits and fixed characters only: safe inline). */
function isoLiteral(sql: Sql | Tx, ms: number) {
  const iso = new Date(ms).toISOString();
  if (!ISO.test(iso)) throw new Error(`partition bound out of range: ${ms}`);
  return sql.unsafe(`'${iso}'::timestamptz`);
}

/** The range partitions of events, from the catalog, bounds as epoch ms; and whether BEFORE has rows. */
export async function rangePartitions(
  sql: Sql,
): Promise<{ partitions: RangePartition[]; beforeHasRows: boolean }> {
  const rows = await sql<{ name: string; lower: number | null; upper: number | null }[]>`
    SELECT name,
           (extract(epoch FROM substring(bound FROM $r$FROM [(]'([^']+)'[)]$r$)::timestamptz)
             * 1000)::float8 AS lower,
           (extract(epoch FROM substring(bound FROM $r$TO [(]'([^']+)'[)]$r$)::timestamptz)
             * 1000)::float8 AS upper
    FROM (
      SELECT c.relname::text AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'events'::regclass
    ) p
    WHERE bound <> 'DEFAULT'`;
  const partitions = rows.map((r) => ({ name: r.name, lower: r.lower, upper: r.upper }));
  const before = partitions.some((p) => p.name === BEFORE_PARTITION)
    ? await sql<{ rows: boolean }[]>`SELECT EXISTS (SELECT 1 FROM ${sql(BEFORE_PARTITION)}) AS rows`
    : [];
  return { partitions, beforeHasRows: before[0]?.rows === true };
}

/**
 * Creates one partition. Events whose timestamp was past every partition when they were stored
 * wait in the DEFAULT partition: those of the new range move into the new table first (locking the
 * DEFAULT partition against writes meanwhile), then it is attached, which locks the parent only
 * against other DDL (SHARE UPDATE EXCLUSIVE): inserts into the other partitions go on.
 */
export async function createPartition(sql: Sql, p: NewPartition): Promise<void> {
  await sql.begin(async (tx) => {
    await tx.unsafe(LOCK_TIMEOUT);
    // Also one creator at a time: another instance's job may have made this one meanwhile.
    await tx`LOCK TABLE events_default IN SHARE ROW EXCLUSIVE MODE`;
    const [made] = await tx<{ made: boolean }[]>`SELECT to_regclass(${p.name}) IS NOT NULL AS made`;
    if (made?.made === true) return;
    await tx`CREATE TABLE ${tx(p.name)} (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`;
    await tx`
      WITH moved AS (
        DELETE FROM events_default
        WHERE ts >= to_timestamp(${p.lower / 1000}::float8)
          AND ts < to_timestamp(${p.upper / 1000}::float8)
        RETURNING *
      )
      INSERT INTO ${tx(p.name)} SELECT * FROM moved`;
    await tx`
      ALTER TABLE events ATTACH PARTITION ${tx(p.name)}
      FOR VALUES FROM (${isoLiteral(tx, p.lower)}) TO (${isoLiteral(tx, p.upper)})`;
  });
}

/**
 * Drops the expired partitions in one transaction: `kept_from` moves up to where the kept ones
 * begin (from then on pages, totals and by-id reads ignore older events and their counts), the
 * partitions go, and BEFORE_PARTITION is made again below `keptFrom` for late events. Dropping a
 * partition locks the whole table (ACCESS EXCLUSIVE on the parent) for catalog work only.
 */
export async function dropPartitions(
  sql: Sql,
  names: readonly string[],
  keptFrom: number,
): Promise<void> {
  await sql.begin(async (tx) => {
    await tx.unsafe(LOCK_TIMEOUT);
    // The parent first, then its partitions, in the order an insert takes them: no deadlock.
    await tx`LOCK TABLE events IN ACCESS EXCLUSIVE MODE`;
    const present = await tx<{ name: string }[]>`
      SELECT n AS name FROM unnest(${names as string[]}::text[]) AS n WHERE to_regclass(n) IS NOT NULL`;
    // Another instance's job dropped them meanwhile (and moved kept_from, made BEFORE again).
    if (present.length === 0) return;
    await tx`
      UPDATE event_retention
      SET kept_from = greatest(kept_from, to_timestamp(${keptFrom / 1000}::float8))`;
    // BEFORE_PARTITION is among them: it lies below every other partition (planPartitions).
    for (const { name } of present) await tx`DROP TABLE ${tx(name)}`;
    await tx`
      CREATE TABLE ${tx(BEFORE_PARTITION)} PARTITION OF events
      FOR VALUES FROM (MINVALUE) TO (${isoLiteral(tx, keptFrom)})`;
  });
}

/** One maintenance pass at `now`: create ahead, then drop what the retention no longer keeps. */
export async function maintainPartitions(
  sql: Sql,
  now: number,
  retentionDays: number | null,
): Promise<MaintenanceDone> {
  const { partitions, beforeHasRows } = await rangePartitions(sql);
  const plan = planPartitions(partitions, now, retentionDays, beforeHasRows);
  for (const p of plan.create) await createPartition(sql, p);
  if (plan.drop === null) return { created: plan.create.map((p) => p.name), dropped: [] };
  await dropPartitions(sql, plan.drop.names, plan.drop.keptFrom);
  return { created: plan.create.map((p) => p.name), dropped: plan.drop.names };
}

/** Seconds per bucket of each level of event_counts. */
const LEVELS = [
  ['s', 1],
  ['h', 3600],
  ['d', 86400],
] as const;

/**
 * Deletes at most `limit` count rows of time before `kept_from` (any level), and answers how many:
 * readers ignore them already, so this only gives the room back, a bounded statement at a time.
 */
export async function pruneEventCounts(sql: Sql, limit: number): Promise<number> {
  let deleted = 0;
  for (const [grain, seconds] of LEVELS) {
    // By ctid (a TID scan), the rows found on event_counts_bucket: a row a fold updated meanwhile
    // (a late event's count) has moved and waits for the next run.
    const result = await sql`
      DELETE FROM event_counts WHERE ctid = ANY(ARRAY(
        SELECT ctid FROM event_counts
        WHERE granularity = ${grain}::"char"
          AND bucket < (SELECT floor(extract(epoch FROM kept_from) / ${seconds}::int4)::int8
                        FROM event_retention WHERE isfinite(kept_from))
        LIMIT ${limit - deleted}
      ))`;
    deleted += result.count;
    if (deleted >= limit) break;
  }
  return deleted;
}
