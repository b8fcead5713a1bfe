/**
 * @module Bounded request body reader (front thread): 413 past MAX_BODY_BYTES (from
 * Content-Length before reading, or while streaming), 400 for bytes that are not UTF-8.
 */
import type uWS from 'uWebSockets.js';
import { AppError } from '../errors.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export const tooLarge = (maxBytes: number): AppError =>
  new AppError('PAYLOAD_TOO_LARGE', `Request body exceeds ${maxBytes} bytes`);

/** Resolves with the body as text. Must be called before the handler returns to uWS. */
export function readBody(res: uWS.HttpResponse, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    res.onData((chunk, isLast) => {
      if (failed) return;
      size += chunk.byteLength;
      if (size > maxBytes) {
        failed = true;
        reject(tooLarge(maxBytes));
        return;
      }
      // uWS reuses the chunk's memory after this callback: copy it unless it is the whole body.
      if (isLast && chunks.length === 0) {
        decode(Buffer.from(chunk), resolve, reject);
        return;
      }
      chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) decode(Buffer.concat(chunks, size), resolve, reject);
    });
  });
}

function decode(
  bytes: Buffer,
  resolve: (text: string) => void,
  reject: (e: unknown) => void,
): void {
  try {
    resolve(utf8.decode(bytes));
  } catch {
    reject(new AppError('MALFORMED_JSON', 'Request body is not valid UTF-8'));
  }
}
