/**
 * @module The leader lease (storage workers; docs/cluster-leader.md). One statement takes or renews
 * it: the holder renews its own at the same epoch, anyone takes an expired one at the next epoch.
 * Only the database's clock is read (no skew between hosts), and no session state is kept (it
 * survives a transaction-pooling PgBouncer, where session advisory locks do not). A fenced write
 * first locks the lease row and checks it still names the writer's holder and epoch, in the
 * write's own transaction: a take-over waits for that write to commit, and a write after the
 * take-over finds another holder and is refused. Parameterised queries only.
 */
import type { LeaderFence } from '../domain/cluster/leader-fence.ts';
import type { Sql, Tx } from './connect.ts';

/** A write whose fence no longer holds: the lease has another holder or epoch now. */
export class FencedError extends Error {
  constructor(readonly fence: LeaderFence) {
    super(`the lease is no longer held by ${fence.holder} at epoch ${fence.epoch}`);
    this.name = 'FencedError';
  }
}

/**
 * Takes or renews lease `name` for `ttlMs` from the database's now; answers the epoch held, or
 * null when another holder's lease has not expired.
 */
export async function takeLease(
  sql: Sql,
  name: string,
  holder: string,
  ttlMs: number,
): Promise<number | null> {
  const [row] = await sql<{ epoch: string }[]>`
    INSERT INTO leases AS l (name, holder, epoch, expires_at)
    VALUES (${name}, ${holder}, 1, now() + ${ttlMs}::int4 * interval '1 millisecond')
    ON CONFLICT (name) DO UPDATE SET
      holder = excluded.holder,
      epoch = CASE WHEN l.holder = excluded.holder THEN l.epoch ELSE l.epoch + 1 END,
      expires_at = excluded.expires_at
    WHERE l.holder = excluded.holder OR l.expires_at < now()
    RETURNING epoch`;
  return row === undefined ? null : Number(row.epoch);
}

/** Ends `holder`'s lease now (a clean shutdown): another instance takes it at its next try. */
export async function releaseLease(sql: Sql, name: string, holder: string): Promise<void> {
  await sql`
    UPDATE leases SET expires_at = now() - interval '1 millisecond'
    WHERE name = ${name} AND holder = ${holder}`;
}

export interface LeaseRow {
  readonly holder: string;
  readonly epoch: number;
  /** Milliseconds until it expires by the database's clock (negative: expired). */
  readonly expiresInMs: number;
}

/** Lease `name` as stored, or null when nobody ever took it. */
export async function readLease(sql: Sql, name: string): Promise<LeaseRow | null> {
  const [row] = await sql<{ holder: string; epoch: string; ms: number }[]>`
    SELECT holder, epoch, (extract(epoch FROM expires_at - now()) * 1000)::float8 AS ms
    FROM leases WHERE name = ${name}`;
  return row === undefined
    ? null
    : { holder: row.holder, epoch: Number(row.epoch), expiresInMs: row.ms };
}

/**
 * In a write's transaction, before it writes: locks lease `name` (FOR SHARE: renewals and a
 * take-over wait until this transaction ends) and throws FencedError unless it still names the
 * fence's holder and epoch.
 */
export async function holdFence(tx: Tx, name: string, fence: LeaderFence): Promise<void> {
  const [row] = await tx`
    SELECT 1 FROM leases
    WHERE name = ${name} AND holder = ${fence.holder} AND epoch = ${fence.epoch}
    FOR SHARE`;
  if (row === undefined) throw new FencedError(fence);
}
