/**
 * @module The only place an error becomes an HTTP answer (DESIGN 7): AppError -> its status and
 * `{ status: 'error', code, message, errors? }`; anything else -> a bare 500, detail to the log.
 */
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Reply } from './reply.ts';

export function errorReply(error: unknown, log: Logger): Reply {
  if (error instanceof AppError) {
    return {
      status: error.status,
      body: {
        status: 'error',
        code: error.code,
        message: error.message,
        ...(error.fields === undefined ? {} : { errors: error.fields }),
      },
      ...(error.headers === undefined ? {} : { headers: error.headers }),
      // The unread rest of a refused body would corrupt the next request on this connection.
      ...(error.status === 413 || error.status === 415 ? { close: true } : {}),
    };
  }
  log.error({ err: error }, 'unexpected error while handling a request');
  return {
    status: 500,
    body: { status: 'error', code: 'INTERNAL', message: 'Internal server error' },
  };
}
