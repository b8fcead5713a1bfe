/**
 * @module Bounded request body reader (front thread): 413 past MAX_BODY_BYTES (from
 * Content-Length before reading, or while streaming), 400 for bytes that are not UTF-8; settles
 * also when the client goes away mid-body.
 */
import type uWS from 'uWebSockets.js';
import { AppError } from '../errors.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export const tooLarge = (maxBytes: number): AppError =>
  new AppError('PAYLOAD_TOO_LARGE', `Request body exceeds ${maxBytes} bytes`);

/** A body being read: its text, and how to give up on it when the client goes away. */
export interface BodyReader {
  readonly text: Promise<string>;
  /**
   * For res.onAborted: uWS sends no more data for an aborted request, so without this the text
   * would never settle, and the request would never leave the gate (shutdown would wait for it).
   */
  abort(): void;
}

export const clientGone = (): AppError =>
  new AppError('MALFORMED_JSON', 'The client closed the connection before the body ended');

/** Reads the body as text. Must be called before the handler returns to uWS. */
export function readBody(res: uWS.HttpResponse, maxBytes: number): BodyReader {
  let fail: (error: AppError) => void = () => {};
  const text = new Promise<string>((resolve, reject) => {
    let chunks: Buffer[] | null = null;
    let size = 0;
    let settled = false;
    fail = (error) => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    const decode = (bytes: Buffer): void => {
      settled = true;
      try {
        resolve(utf8.decode(bytes));
      } catch {
        reject(new AppError('MALFORMED_JSON', 'Request body is not valid UTF-8'));
      }
    };
    res.onData((chunk, isLast) => {
      if (settled) return;
      size += chunk.byteLength;
      if (size > maxBytes) {
        fail(tooLarge(maxBytes));
        return;
      }
      // uWS reuses the chunk's memory after this callback: copy it unless it is the whole body.
      if (isLast && chunks === null) {
        decode(Buffer.from(chunk));
        return;
      }
      (chunks ??= []).push(Buffer.from(chunk.slice(0)));
      if (isLast) decode(Buffer.concat(chunks, size));
    });
  });
  return { text, abort: () => fail(clientGone()) };
}
