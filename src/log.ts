/**
 * @module The logger (pino). The only writer to stdout; every thread creates its own child with
 * a `thread` binding so lines can be told apart.
 */
import { pino, type Logger } from 'pino';

export type { Logger };

export const createLogger = (level: string, thread: string): Logger =>
  pino({ level, base: { thread } });
