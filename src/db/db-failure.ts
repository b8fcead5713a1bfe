/**
 * @module Turns a postgres.js error into a short reason that is safe to show a client (no SQL, no
 * parameters, no stack); the storage worker logs the detail.
 */
export function describeDbError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ECONNREFUSED':
    case 'ECONNRESET':
    case 'ENOTFOUND':
    case 'EHOSTUNREACH':
    case 'CONNECT_TIMEOUT':
    case 'CONNECTION_CLOSED':
    case 'CONNECTION_ENDED':
    case 'CONNECTION_DESTROYED':
    case '57P01': // admin_shutdown
    case '57P02': // crash_shutdown
    case '57P03': // cannot_connect_now
      return 'database unavailable';
    case '57014':
      return 'database timeout';
    default:
      return typeof code === 'string' ? `database error ${code}` : 'database error';
  }
}
