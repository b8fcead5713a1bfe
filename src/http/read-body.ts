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

/**
 * Reads the body as text. Must be called before the handler returns to uWS. A class rather than
 * closures: tsx (esbuild keepNames) wraps each named closure in a defineProperty call, on every
 * ingest request.
 */
export function readBody(res: uWS.HttpResponse, maxBytes: number): BodyReader {
  return new StreamedBody(res, maxBytes);
}

class StreamedBody implements BodyReader {
  readonly text: Promise<string>;
  private settle!: (text: string) => void;
  private refuse!: (error: unknown) => void;
  private chunks: Buffer[] | null = null;
  private size = 0;
  private settled = false;

  constructor(res: uWS.HttpResponse, maxBytes: number) {
    this.text = new Promise<string>((resolve, reject) => {
      this.settle = resolve;
      this.refuse = reject;
    });
    res.onData((chunk, isLast) => this.onChunk(chunk, isLast, maxBytes));
  }

  abort(): void {
    this.fail(clientGone());
  }

  private fail(error: AppError): void {
    if (this.settled) return;
    this.settled = true;
    this.refuse(error);
  }

  private onChunk(chunk: ArrayBuffer, isLast: boolean, maxBytes: number): void {
    if (this.settled) return;
    this.size += chunk.byteLength;
    if (this.size > maxBytes) {
      this.fail(tooLarge(maxBytes));
      return;
    }
    // uWS reuses the chunk's memory after this callback: copy it unless it is the whole body.
    if (isLast && this.chunks === null) {
      this.settled = true;
      this.decode(Buffer.from(chunk));
      return;
    }
    (this.chunks ??= []).push(Buffer.from(chunk.slice(0)));
    if (isLast) {
      this.settled = true;
      this.decode(Buffer.concat(this.chunks, this.size));
    }
  }

  private decode(bytes: Buffer): void {
    try {
      this.settle(utf8.decode(bytes));
    } catch {
      this.refuse(new AppError('MALFORMED_JSON', 'Request body is not valid UTF-8'));
    }
  }
}
