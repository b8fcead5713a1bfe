/**
 * @module What every area of the storage worker's handlers shares: the worker's postgres.js client
 * and `guarded`, which turns a repository call into a Result (failures answered as data, logged).
 */
import type { Sql } from '../../src/db/connect.ts';
import { describeDbError } from '../../src/db/db-failure.ts';
import { hasHoles } from '../../src/db/sparse-result-guard.ts';
import type { Logger } from '../../src/log.ts';
import type {
  DbFailure,
  Result,
  StorageHandlerTable,
  StorageHandlers,
} from '../../src/protocol/storage/index.ts';

export type Guarded = <T>(op: string, run: () => Promise<T>) => Promise<Result<T, DbFailure>>;

export interface StorageContext {
  readonly sql: Sql;
  readonly guarded: Guarded;
}

/** The handlers of one area (H: its interface in src/protocol/storage/), as the table holds them. */
export type AreaTable<H extends Partial<StorageHandlers>> = Pick<
  StorageHandlerTable,
  keyof H & keyof StorageHandlers
>;

export const guardedBy =
  (log: Logger): Guarded =>
  async (op, run) => {
    try {
      const value = await run();
      // postgres.js 3.4.9 may answer a sparse array after a statement failed mid-stream on the
      // same connection (docs/decisions.md): answered as a failure, never handed on as rows.
      if (hasHoles(value)) {
        log.error({ op }, 'the database driver answered a sparse result; treated as a failure');
        return {
          ok: false,
          code: 'DB_FAILURE',
          message: 'the database answered a malformed result',
        };
      }
      return { ok: true, value };
    } catch (error) {
      log.error({ err: error, op }, 'storage operation failed');
      return { ok: false, code: 'DB_FAILURE', message: describeDbError(error) };
    }
  };
