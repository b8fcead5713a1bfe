/**
 * @module Bounded request body reader (front thread): 413 past MAX_BODY_BYTES (from
 * Content-Length before reading, or while streaming), 400 for bytes that are not UTF-8 (when read
 * as text); settles also when the client goes away mid-body.
 */
import type uWS from 'uWebSockets.js';
import { AppError } from '../errors.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export const tooLarge = (maxBytes: number): AppError =>
  new AppError('PAYLOAD_TOO_LARGE', `Request body exceeds ${maxBytes} bytes`);

/** A body being read: its text (or bytes), and how to give up on it when the client goes away. */
export interface BodyReader<T = string> {
  readonly text: Promise<T>;
  /**
   * For res.onAborted: uWS sends no more data for an aborted request, so without this the text
   * would never settle, and the request would never leave the gate (shutdown would wait for it).
   */
  abort(): void;
}

export const clientGone = (): AppError =>
  new AppError('MALFORMED_JSON', 'The client closed the connection before the body ended');

/** Reads the body as text. Must be called before the handler returns to uWS. */
export const readBody = (res: uWS.HttpResponse, maxBytes: number): BodyReader =>
  readWith(res, maxBytes, (bytes) => {
    try {
      return utf8.decode(bytes);
    } catch {
      throw new AppError('MALFORMED_JSON', 'Request body is not valid UTF-8');
    }
  });

/** Reads the body as bytes (protobuf, CloudEvents binary mode). Call it as readBody. */
export const readBytes = (res: uWS.HttpResponse, maxBytes: number): BodyReader<Buffer> =>
  // A copy: a single chunk's Buffer still views uWS's memory, which it reuses after the callback.
  readWith(res, maxBytes, (bytes) => Buffer.from(bytes));

/** `finish` runs inside uWS's data callback: after it returns, `bytes` may be overwritten. */

function readWith<T>(
  res: uWS.HttpResponse,
  maxBytes: number,
  finish: (bytes: Buffer) => T,
): BodyReader<T> {
  let fail: (error: AppError) => void = () => {};
  const text = new Promise<T>((resolve, reject) => {
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
        resolve(finish(bytes));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
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
