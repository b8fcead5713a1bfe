/**
 * @module The logger (pino). The only writer to stdout; every thread creates its own child with
 * a `thread` binding so lines can be told apart. Secrets never reach it: the password of any URL
 * in a message or a logged error is replaced by `****`.
 */
import {
  pino,
  stdSerializers,
  type DestinationStream,
  type Logger,
  type LoggerOptions,
} from 'pino';

export type { Logger };

/**
 * The userinfo password of every URL in `text` (`scheme://user:secret@host`) replaced by `****`.
 * Generous on purpose: the text may be a malformed URL quoted in an error, and redacting a little
 * too much is harmless where leaking a password is not.
 */
export const redactUrlPasswords = (text: string): string =>
  text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/@:"']*:)[^\s@"]+@/gi, '$1****@');

/**
 * Every string in a serialised error (message, stack, causes, `input` of an invalid URL...), in it
 * and in the plain objects and arrays it holds. Other objects (a socket a driver error points to)
 * are left to pino as they are: walking them could take long, and their cycles forever.
 */
const redactDeep = (value: unknown, seen: WeakSet<object>, depth: number): unknown => {
  if (typeof value === 'string') return redactUrlPasswords(value);
  if (value === null || typeof value !== 'object' || seen.has(value) || depth > 8) return value;
  seen.add(value);
  if (Array.isArray(value)) return value.map((v: unknown) => redactDeep(v, seen, depth + 1));
  const prototype: unknown = Object.getPrototypeOf(value);
  // pino's serialised errors, the nested ones included, have a prototype of pino's and a stack.
  if (prototype !== Object.prototype && prototype !== null && !('stack' in value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [key, redactDeep(v, seen, depth + 1)]),
  );
};

const options = (level: string, thread: string): LoggerOptions => ({
  level,
  base: { thread },
  serializers: {
    err: (error: Error) => redactDeep(stdSerializers.err(error), new WeakSet(), 0),
  },
  hooks: {
    // The message strings; objects other than `err` carry no URL of ours.
    logMethod(args: unknown[], method) {
      const redacted = args.map((a) => (typeof a === 'string' ? redactUrlPasswords(a) : a));
      method.apply(this, redacted as Parameters<typeof method>);
    },
  },
});

/** Writes to stdout, or to `destination` (a test reading what would be logged). */
export const createLogger = (
  level: string,
  thread: string,
  destination?: DestinationStream,
): Logger =>
  destination === undefined
    ? pino(options(level, thread))
    : pino(options(level, thread), destination);
