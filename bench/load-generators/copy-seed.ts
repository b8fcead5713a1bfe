/**
 * Seeds events with COPY instead of the batch endpoint (10,000,000 events through the API take
 * hours on two shared cores): the secondary indexes of `events` are dropped, the rows streamed in,
 * the indexes built again from their own catalogue definitions, and the page counts written as the
 * service's fold (foldEventCounts) would have, counted on the stored rows, so they equal the events. Ends with VACUUM ANALYZE, the state autovacuum leaves an old table in, and
 * fails unless the schema's indexes are what they were before (what the migrations made).
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type postgres from 'postgres';
import { seedBatch } from './seed-events.ts';

export interface CopySeedOptions {
  readonly events: number;
  /** Events per generated batch (the same batches, and so the same events, as the API mode). */
  readonly batch: number;
  readonly days: number;
  readonly log: (line: string) => void;
}

export interface CopySeedResult {
  readonly seconds: number;
  /** Seconds spent in the COPY, the index builds, and counting plus VACUUM ANALYZE. */
  readonly copySeconds: number;
  readonly indexSeconds: number;
  readonly countSeconds: number;
}

/** Text-format COPY escapes (backslash, tab, newline, carriage return). */
export const copyText = (value: string): string =>
  /[\\\t\n\r]/.test(value)
    ? value.replace(
        /[\\\t\n\r]/g,
        (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c] as string,
      )
    : value;

function* copyRows(options: CopySeedOptions, now: number): Generator<string> {
  const batches = Math.ceil(options.events / options.batch);
  for (let index = 0; index < batches; index++) {
    const count = Math.min(options.batch, options.events - index * options.batch);
    // As the service does: received now, stored a moment later.
    const receivedAt = new Date().toISOString();
    let chunk = '';
    for (const e of seedBatch(index, count, now, options.days, batches)) {
      chunk +=
        `${copyText(e.eventType)}\t${e.timestamp}\t${copyText(e.source)}\t${copyText(e.userId)}\t` +
        `${copyText(e.sessionId)}\t${e.severity}\t${copyText(JSON.stringify(e.tags))}\t` +
        `${copyText(JSON.stringify(e.metadata))}\t${receivedAt}\t0\n`;
    }
    yield chunk;
    if ((index + 1) % Math.ceil(1_000_000 / options.batch) === 0) {
      options.log(`copied ${((index + 1) * options.batch).toLocaleString('en-US')} events`);
    }
  }
}

/** Every index of the schema, as `name: definition` lines, to compare before and after. */
async function schemaIndexes(sql: postgres.Sql): Promise<string[]> {
  const rows = await sql<{ indexname: string; indexdef: string }[]>`
    SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()
    ORDER BY tablename, indexname`;
  return rows.map((r) => `${r.indexname}: ${r.indexdef}`);
}

export async function copySeed(
  sql: postgres.Sql,
  options: CopySeedOptions,
): Promise<CopySeedResult> {
  const started = performance.now();
  const now = Date.now();
  const indexesBefore = await schemaIndexes(sql);
  const db = await sql.reserve();
  try {
    // This session only: index builds and the counts' aggregation in memory rather than on disk.
    await db`SET maintenance_work_mem = '1GB'`;
    await db`SET work_mem = '1GB'`;
    // Not the primary key: ids are drawn in order, so its inserts append at the tree's right edge.
    const secondary = await db<{ name: string; def: string }[]>`
      SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def
      FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = 'events'::regclass AND NOT i.indisprimary AND NOT i.indisunique
      ORDER BY c.relname`;
    for (const index of secondary) await db`DROP INDEX ${db(index.name)}`;

    const copy = await db`
      COPY events (event_type, ts, source, user_id, session_id, severity, tags, metadata,
                   received_at, processing_latency_ms) FROM STDIN`.writable();
    await pipeline(Readable.from(copyRows(options, now)), copy);
    const copied = performance.now();
    options.log(`COPY done in ${((copied - started) / 1000).toFixed(1)} s; building indexes`);

    // The definitions come from the catalogue, not from input: DDL takes no parameters. An index
    // of the partitioned table reads `ON ONLY events`, which would build none on the partitions.
    for (const index of secondary) await db.unsafe(index.def.replace(' ON ONLY ', ' ON '));
    const indexed = performance.now();
    options.log(`indexes built in ${((indexed - copied) / 1000).toFixed(1)} s; counting`);

    // The counts the service's fold (foldEventCounts) would have written for these rows, taken
    // from the rows themselves: per type and for all types ('') at day, hour and second, shard 0.
    // Inserted without the primary key, which is built afterwards: upserting ten million counter
    // rows through the fold took minutes per million events.
    const [pk] = await db<{ name: string; def: string }[]>`
      SELECT conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint
      WHERE conrelid = 'event_counts'::regclass AND contype = 'p'`;
    if (pk === undefined) throw new Error('event_counts has no primary key');
    await db`ALTER TABLE event_counts DROP CONSTRAINT ${db(pk.name)}`;
    await db`
      WITH c AS MATERIALIZED (
        SELECT event_type, floor(extract(epoch FROM ts))::int8 AS s, count(*)::int8 AS n
        FROM events GROUP BY 1, 2
      )
      INSERT INTO event_counts (event_type, granularity, bucket, shard, n)
      SELECT * FROM (
        SELECT event_type, 's'::"char" AS granularity, s AS bucket, 0, n FROM c
        UNION ALL SELECT '', 's', s, 0, sum(n) FROM c GROUP BY s
        UNION ALL SELECT event_type, 'h', floor(s / 3600.0)::int8 AS b, 0, sum(n) FROM c GROUP BY 1, b
        UNION ALL SELECT '', 'h', floor(s / 3600.0)::int8 AS b, 0, sum(n) FROM c GROUP BY b
        UNION ALL SELECT event_type, 'd', floor(s / 86400.0)::int8 AS b, 0, sum(n) FROM c GROUP BY 1, b
        UNION ALL SELECT '', 'd', floor(s / 86400.0)::int8 AS b, 0, sum(n) FROM c GROUP BY b
      ) k
      -- In the order the service's folds write them when events arrive in time order (each fold
      -- adds the last second's rows): one hour's rows of a level sit on a few heap pages.
      ORDER BY bucket * CASE granularity WHEN 's' THEN 1 WHEN 'h' THEN 3600 ELSE 86400 END,
               granularity, event_type`;
    // Catalogue text again, as for the indexes.
    await db.unsafe(`ALTER TABLE event_counts ADD CONSTRAINT "${pk.name}" ${pk.def}`);
    await db`VACUUM ANALYZE events`;
    await db`VACUUM ANALYZE event_counts`;
    const counted = performance.now();
    options.log(
      `counts folded, VACUUM ANALYZE done in ${((counted - indexed) / 1000).toFixed(1)} s`,
    );

    const indexesAfter = await schemaIndexes(db);
    if (indexesAfter.join('\n') !== indexesBefore.join('\n')) {
      throw new Error(
        `indexes after COPY seeding differ from the migrations':\nbefore:\n${indexesBefore.join('\n')}\nafter:\n${indexesAfter.join('\n')}`,
      );
    }
    return {
      seconds: (counted - started) / 1000,
      copySeconds: (copied - started) / 1000,
      indexSeconds: (indexed - copied) / 1000,
      countSeconds: (counted - indexed) / 1000,
    };
  } finally {
    db.release();
  }
}
