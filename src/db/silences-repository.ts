/**
 * @module Silence SQL (storage workers; docs/silences.md). Parameterised queries only. Every
 * instant that decides something (a state, the bound on open silences, an ending) is the front
 * thread's request time, passed in, so an answer's `state` agrees with what was stored.
 */
import type { RuleSeverity } from '../domain/rules/rule-types.ts';
import type {
  SilenceEnding,
  SilenceFields,
  SilenceFilter,
  SilenceRecord,
} from '../domain/silences/silence.ts';
import type { Sql } from './connect.ts';

interface SilenceRow {
  id: string;
  rule_id: number | null;
  severity: RuleSeverity | null;
  starts_at: Date;
  ends_at: Date;
  comment: string;
  created_by: string;
  created_at: Date;
}

const toRecord = (row: SilenceRow): SilenceRecord => ({
  id: Number(row.id),
  ruleId: row.rule_id,
  severity: row.severity,
  startsAt: row.starts_at.toISOString(),
  endsAt: row.ends_at.toISOString(),
  comment: row.comment,
  createdBy: row.created_by,
  createdAt: row.created_at.toISOString(),
});

/** Epoch ms as a parameter; the times given here are the request's, or bounded by validation. */
const at = (ms: number): string => new Date(ms).toISOString();

/** Class of the advisory lock that serialises silence creations (apart from rules' and keys'). */
const CREATE_LOCK_CLASS = 0x76676c73; // 'vgls'

/**
 * Inserts the silence unless its rule does not exist or `maxOpen` silences are not expired at
 * `now`. Creations are serialised, so concurrent ones cannot pass the bound together.
 */
export async function createSilence(
  sql: Sql,
  fields: SilenceFields,
  now: number,
  maxOpen: number,
): Promise<SilenceRecord | 'UNKNOWN_RULE' | 'SILENCE_LIMIT'> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${CREATE_LOCK_CLASS}, 'silences'::regclass::oid::int)`;
    if (fields.ruleId !== null) {
      const [rule] = await tx`SELECT 1 FROM rules WHERE id = ${fields.ruleId}`;
      if (rule === undefined) return 'UNKNOWN_RULE' as const;
    }
    const [open] = await tx<{ n: number }[]>`
      SELECT count(*)::int AS n FROM silences WHERE ends_at > ${at(now)}`;
    if ((open as { n: number }).n >= maxOpen) return 'SILENCE_LIMIT' as const;
    const [row] = await tx<SilenceRow[]>`
      INSERT INTO silences (rule_id, severity, starts_at, ends_at, comment, created_by)
      VALUES (${fields.ruleId}, ${fields.severity}, ${at(fields.startsAt)}, ${at(fields.endsAt)},
              ${fields.comment}, ${fields.createdBy})
      RETURNING *`;
    return toRecord(row as SilenceRow);
  });
}

export async function getSilence(sql: Sql, id: number): Promise<SilenceRecord | null> {
  const [row] = await sql<SilenceRow[]>`SELECT * FROM silences WHERE id = ${id}`;
  return row === undefined ? null : toRecord(row);
}

/** A page of silences, newest first, with the filters' states taken at `now`. */
export async function listSilences(
  sql: Sql,
  filter: SilenceFilter,
  now: number,
  page: number,
  size: number,
): Promise<{ rows: SilenceRecord[]; total: number }> {
  const t = at(now);
  const state = {
    pending: sql`AND starts_at > ${t}`,
    active: sql`AND starts_at <= ${t} AND ends_at > ${t}`,
    expired: sql`AND ends_at <= ${t}`,
  };
  const where = sql`
    WHERE true
      ${filter.state === null ? sql`` : state[filter.state]}
      ${filter.ruleId === null ? sql`` : sql`AND rule_id = ${filter.ruleId}`}`;
  return sql.begin('isolation level repeatable read read only', async (tx) => {
    const [count] = await tx<{ total: number }[]>`
      SELECT count(*)::int AS total FROM silences ${where}`;
    const rows = await tx<SilenceRow[]>`
      SELECT * FROM silences ${where}
      ORDER BY created_at DESC, id DESC LIMIT ${size} OFFSET ${page * size}`;
    return { rows: rows.map(toRecord), total: count?.total ?? 0 };
  });
}

/**
 * Ends the silence at `now` (Alertmanager's "expire"): an active one gets `ends_at = now`; a
 * pending one (or one starting at `now`, which `ends_at > starts_at` could not end) is removed;
 * an expired one is left as it is. Null when there is no such silence.
 */
export async function endSilence(sql: Sql, id: number, now: number): Promise<SilenceEnding | null> {
  return sql.begin(async (tx) => {
    const [row] = await tx<SilenceRow[]>`SELECT * FROM silences WHERE id = ${id} FOR UPDATE`;
    if (row === undefined) return null;
    if (row.ends_at.getTime() <= now) return 'unchanged' as const;
    if (row.starts_at.getTime() >= now) {
      await tx`DELETE FROM silences WHERE id = ${id}`;
      return 'removed' as const;
    }
    await tx`UPDATE silences SET ends_at = ${at(now)} WHERE id = ${id}`;
    return 'ended' as const;
  });
}

/** The silences whose time range overlaps [from, to) (a backtest's), by id; at most `limit`. */
export async function silencesOverlapping(
  sql: Sql,
  from: number,
  to: number,
  limit: number,
): Promise<SilenceRecord[]> {
  const rows = await sql<SilenceRow[]>`
    SELECT * FROM silences WHERE starts_at < ${at(to)} AND ends_at > ${at(from)}
    ORDER BY id LIMIT ${limit}`;
  return rows.map(toRecord);
}
