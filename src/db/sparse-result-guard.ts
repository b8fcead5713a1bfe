/**
 * @module Guards against a postgres.js 3.4.9 bug (porsager/postgres #1119 and #1181, fixes #1120
 * and #1190 unreleased): a connection's row counter is reset only when a statement completes, so
 * after a statement fails mid-stream (a statement timeout in a long cursor, an error on the
 * k-th row) the NEXT query on that connection resolves with k holes before its rows, and no error.
 * Whatever completes on the connection clears it. docs/decisions.md says why this, not a patch.
 */
import type { Sql } from './connect.ts';

type Reserved = Awaited<ReturnType<Sql['reserve']>>;

/** True when `value` is an array with a hole (how the bug shows): never handed on as rows. */
export function hasHoles(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  // `in` sees holes that `some`, `every` and `forEach` skip.
  for (let i = 0; i < value.length; i++) if (!(i in value)) return true;
  return false;
}

/**
 * Runs `read` on a connection of its own; when it fails, one statement that completes runs on that
 * same connection before it goes back to the pool, so that the failed statement's stale row count
 * lands in a result thrown away rather than in the next caller's.
 */
export async function onGuardedConnection<T>(
  sql: Sql,
  read: (connection: Reserved) => Promise<T>,
): Promise<T> {
  const connection = await sql.reserve();
  try {
    return await read(connection);
  } catch (error) {
    // A dead connection fails this too, and is replaced by the pool anyway.
    await connection`SELECT 1`.catch(() => undefined);
    throw error;
  } finally {
    connection.release();
  }
}
