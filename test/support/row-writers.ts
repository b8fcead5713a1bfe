/**
 * @module Which transactions last wrote some rows (their `xmin`): rows written by one transaction
 * share it, so a test sees that many rows were written together without timing anything.
 */
import type postgres from 'postgres';

export async function rowWriters(
  sql: postgres.Sql,
  table: 'alerts' | 'rules',
  ids: readonly number[],
): Promise<Set<string>> {
  const rows =
    table === 'alerts'
      ? await sql<
          { x: string }[]
        >`SELECT xmin::text AS x FROM alerts WHERE id = ANY(${ids}::int8[])`
      : await sql<
          { x: string }[]
        >`SELECT xmin::text AS x FROM rules WHERE id = ANY(${ids}::int4[])`;
  return new Set(rows.map((r) => r.x));
}
