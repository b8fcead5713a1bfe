/**
 * @module The SQL of cluster mode outside the ingest path (the cluster thread's own connection):
 * an instance's registration and heartbeat in `instances`, and the outbox's upkeep: deleting
 * what JetStream has, the relay that republishes rows left behind, and pruning. Times are the
 * database's (now()): instances on several hosts never compare their own clocks.
 */
import type { AliveInstance } from '../domain/cluster/membership.ts';
import type { Sql } from './connect.ts';

/** An instance whose last_seen is older than this is dead: its id may be taken by a new process. */
export const INSTANCE_DEAD_AFTER_MS = 3_000;
/** An instance seen within this is alive (its batches are expected). */
export const INSTANCE_ALIVE_MS = 5_000;

/** The id is held by another process, seen within INSTANCE_DEAD_AFTER_MS. */
export interface InstanceInUse {
  readonly holder: string;
  readonly seenMsAgo: number;
}

/**
 * Takes `id` for this process (`holder`) and answers this start's incarnation (1 on the first
 * start, one more at each next), or who holds it while another live process does.
 */
export async function registerInstance(
  sql: Sql,
  id: string,
  holder: string,
): Promise<number | InstanceInUse> {
  const rows = await sql<{ incarnation: number }[]>`
    INSERT INTO instances (id, incarnation, holder, last_seen) VALUES (${id}, 1, ${holder}, now())
    ON CONFLICT (id) DO UPDATE
      SET incarnation = instances.incarnation + 1, holder = EXCLUDED.holder, last_seen = now()
      WHERE instances.last_seen < now() - make_interval(secs => ${INSTANCE_DEAD_AFTER_MS / 1000})
         OR instances.holder = EXCLUDED.holder
    RETURNING incarnation`;
  const row = rows[0];
  if (row !== undefined) return row.incarnation;
  const held = await sql<{ holder: string; ago: number }[]>`
    SELECT holder, (extract(epoch FROM now() - last_seen) * 1000)::float8 AS ago
    FROM instances WHERE id = ${id}`;
  return { holder: held[0]?.holder ?? '?', seenMsAgo: held[0]?.ago ?? 0 };
}

/**
 * This instance's heartbeat (last_seen = now()), and the instances alive now; `held` false when
 * another process has taken this id meanwhile (this one was paused past INSTANCE_DEAD_AFTER_MS).
 */
export async function heartbeat(
  sql: Sql,
  id: string,
  holder: string,
): Promise<{ held: boolean; alive: AliveInstance[] }> {
  const rows = await sql<{ id: string; incarnation: number; held: boolean }[]>`
    WITH beat AS (
      UPDATE instances SET last_seen = now() WHERE id = ${id} AND holder = ${holder} RETURNING id
    )
    SELECT i.id, i.incarnation, EXISTS (SELECT 1 FROM beat) AS held FROM instances i
    WHERE i.last_seen > now() - make_interval(secs => ${INSTANCE_ALIVE_MS / 1000})
    UNION ALL SELECT NULL, 0, EXISTS (SELECT 1 FROM beat)`;
  const held = rows.some((row) => row.held);
  const alive = rows
    .filter((row) => row.id !== null)
    .map((row) => ({ id: row.id, incarnation: row.incarnation }));
  return { held, alive };
}

/** Deletes the rows JetStream has acknowledged, in one statement; rows the relay holds are left to it. */
export async function deletePublished(
  sql: Sql,
  instanceId: string,
  seqs: readonly number[],
): Promise<void> {
  if (seqs.length === 0) return;
  await sql`
    DELETE FROM ingest_outbox WHERE (instance_id, batch_seq) IN (
      SELECT instance_id, batch_seq FROM ingest_outbox
      WHERE instance_id = ${instanceId} AND batch_seq = ANY(${seqs as number[]}::int8[])
      FOR UPDATE SKIP LOCKED)`;
}

export interface OutboxRecord {
  readonly instanceId: string;
  readonly seq: number;
  readonly payload: Uint8Array;
}

interface OutboxDbRow {
  instance_id: string;
  batch_seq: string;
  payload: Buffer;
}

const toRecord = (row: OutboxDbRow): OutboxRecord => ({
  instanceId: row.instance_id,
  seq: Number(row.batch_seq),
  payload: row.payload,
});

export interface RelayScope {
  /** This instance, and the first batch number of its current incarnation. */
  readonly self: string;
  readonly selfFrom: number;
  /** Rows of any instance older than this are taken (their publisher crashed or lost the broker). */
  readonly olderThanMs: number;
  /** Also this instance's rows of the current incarnation, whatever their age (the broker is back). */
  readonly ownAll: boolean;
  readonly limit: number;
}

/**
 * One round of the relay: takes up to `limit` rows no other relay holds (FOR UPDATE SKIP LOCKED;
 * rows of this instance's earlier incarnations always, they are orphans), publishes them, and
 * deletes those JetStream acknowledged, in one transaction; answers how many it took.
 */
export async function relayOutbox(
  sql: Sql,
  scope: RelayScope,
  publish: (rows: readonly OutboxRecord[]) => Promise<readonly OutboxRecord[]>,
): Promise<number> {
  return sql.begin(async (tx) => {
    const rows = await tx<OutboxDbRow[]>`
      SELECT instance_id, batch_seq, payload FROM ingest_outbox
      WHERE created_at < now() - make_interval(secs => ${scope.olderThanMs / 1000})
         OR (instance_id = ${scope.self} AND batch_seq < ${scope.selfFrom})
         OR (${scope.ownAll} AND instance_id = ${scope.self})
      ORDER BY created_at LIMIT ${scope.limit}
      FOR UPDATE SKIP LOCKED`;
    if (rows.length === 0) return 0;
    const acked = await publish(rows.map(toRecord));
    if (acked.length > 0) {
      await tx`
        DELETE FROM ingest_outbox WHERE (instance_id, batch_seq) IN (
          SELECT * FROM unnest(${acked.map((r) => r.instanceId)}::text[],
                               ${acked.map((r) => r.seq)}::int8[]))`;
    }
    return rows.length;
  });
}

/** The outbox rows of these batches of `instanceId` that exist (a failed insert in doubt). */
export async function outboxRows(
  sql: Sql,
  instanceId: string,
  seqs: readonly number[],
): Promise<OutboxRecord[]> {
  const rows = await sql<OutboxDbRow[]>`
    SELECT instance_id, batch_seq, payload FROM ingest_outbox
    WHERE instance_id = ${instanceId} AND batch_seq = ANY(${seqs as number[]}::int8[])`;
  return rows.map(toRecord);
}

/**
 * An empty row for each of these failed batches that has none. A batch that committed after all
 * keeps its own row; and since the primary key admits one row per batch, a COMMIT still in
 * flight after this fails whole (its events are not stored) rather than go uncounted.
 */
export async function writeEmptyOutboxRows(
  sql: Sql,
  instanceId: string,
  seqs: readonly number[],
): Promise<void> {
  await sql`
    INSERT INTO ingest_outbox (instance_id, batch_seq, payload)
    SELECT ${instanceId}, s, ''::bytea FROM unnest(${seqs as number[]}::int8[]) AS s
    ON CONFLICT (instance_id, batch_seq) DO NOTHING`;
}

/**
 * Deletes up to `limit` rows older than `maxAgeMs`: no instance would count their events any
 * more (they are past the longest metrics window), and this bounds the outbox while the broker
 * is down. Answers how many.
 */
export async function pruneOutbox(sql: Sql, maxAgeMs: number, limit: number): Promise<number> {
  const result = await sql`
    DELETE FROM ingest_outbox WHERE (instance_id, batch_seq) IN (
      SELECT instance_id, batch_seq FROM ingest_outbox
      WHERE created_at < now() - make_interval(secs => ${maxAgeMs / 1000})
      ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
  return result.count;
}
