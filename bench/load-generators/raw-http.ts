/**
 * A minimal keep-alive HTTP/1.1 client connection over node:net for the paced load generator and
 * the lean GET client: one request in flight, Content-Length framing only (what uWS sends),
 * callbacks instead of promises. The requests it builds carry the bench's API key.
 */
import net from 'node:net';
import { KEY_HEADER_LINES } from './client-key.ts';

export interface RawAnswer {
  readonly status: number;
  readonly body: Buffer;
}

export type AnswerCallback = (error: Error | null, answer: RawAnswer | null) => void;

const HEADER_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;

/** The bytes of a POST with a JSON body (built once per request; the body varies). */
export function postRequest(host: string, path: string, body: string): Buffer {
  const bytes = Buffer.byteLength(body);
  return Buffer.from(
    `POST ${path} HTTP/1.1\r\nHost: ${host}\r\n${KEY_HEADER_LINES}` +
      `Content-Type: application/json\r\nContent-Length: ${bytes}\r\n\r\n${body}`,
  );
}

/** The bytes of a GET (built once, sent again and again); `gzip` accepts a gzip answer. */
export function getRequest(host: string, path: string, gzip: boolean): Buffer {
  return Buffer.from(
    `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${KEY_HEADER_LINES}` +
      `${gzip ? 'Accept-Encoding: gzip\r\n' : ''}\r\n`,
    'latin1',
  );
}

export class RawConnection {
  private readonly socket: net.Socket;
  private buffered: Buffer = Buffer.alloc(0);
  private pending: AnswerCallback | null = null;
  private closedError: Error | null = null;

  constructor(port: number, host = '127.0.0.1') {
    this.socket = net.connect({ port, host, noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (error) => this.fail(error));
    this.socket.on('close', () => this.fail(new Error('connection closed')));
  }

  get busy(): boolean {
    return this.pending !== null;
  }

  get closed(): boolean {
    return this.closedError !== null;
  }

  /** Sends one request; `done` is called once with its answer or the connection's failure. */
  send(request: Buffer, done: AnswerCallback): void {
    if (this.closedError !== null) {
      done(this.closedError, null);
      return;
    }
    if (this.pending !== null) throw new Error('RawConnection: a request is already in flight');
    this.pending = done;
    this.socket.write(request);
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const end = this.buffered.indexOf(HEADER_END);
    if (end < 0) return;
    const head = this.buffered.subarray(0, end).toString('latin1');
    const length = CONTENT_LENGTH.exec(head)?.[1];
    if (length === undefined) {
      this.fail(new Error(`answer without Content-Length: ${head.slice(0, 200)}`));
      this.socket.destroy();
      return;
    }
    const total = end + HEADER_END.length + Number(length);
    if (this.buffered.length < total) return;
    const answer: RawAnswer = {
      status: Number(head.slice(9, 12)),
      body: this.buffered.subarray(end + HEADER_END.length, total),
    };
    this.buffered = this.buffered.subarray(total);
    const done = this.pending;
    this.pending = null;
    done?.(null, answer);
  }

  private fail(error: Error): void {
    this.closedError ??= error;
    const done = this.pending;
    this.pending = null;
    done?.(error, null);
  }
}
