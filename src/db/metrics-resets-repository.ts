/**
 * @module The metrics reset counter (storage workers; cluster mode, docs/cluster.md): a reset made
 * through one instance moves it on, and every instance polls it to reset its own metrics. One row,
 * read by its primary key.
 */
import type { Sql } from './connect.ts';

/** The counter as it stands. */
export async function metricsResetSeq(sql: Sql): Promise<number> {
  const [row] = await sql<{ seq: string }[]>`SELECT seq FROM metrics_resets WHERE one`;
  return Number(row?.seq ?? 0);
}

/** Moves the counter on by one; answers the value this reset made it. */
export async function countMetricsReset(sql: Sql): Promise<number> {
  const [row] = await sql<{ seq: string }[]>`
    UPDATE metrics_resets SET seq = seq + 1 WHERE one RETURNING seq`;
  if (row === undefined) throw new Error('the metrics_resets row is missing');
  return Number(row.seq);
}
