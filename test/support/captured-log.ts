/**
 * A logger at the most verbose level writing to memory instead of stdout, for tests that check
 * what would be logged (that no secret is).
 */
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/log.ts';

export interface CapturedLog {
  readonly log: Logger;
  /** Every line written so far, as JSON text. */
  readonly lines: string[];
}

export function captureLog(thread: string): CapturedLog {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { log: createLogger('trace', thread, stream), lines };
}
