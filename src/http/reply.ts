/**
 * @module Writing an answer to a uWS response (front thread): one corked write, never after the
 * client went away. The abort flag lives in our own object, not on the native response.
 */
import type uWS from 'uWebSockets.js';
import { STATUS_CODES } from 'node:http';

export interface Reply {
  readonly status: number;
  /** Serialised with JSON.stringify; undefined (and no json) sends no body (204). */
  readonly body?: unknown;
  /** A body that is already JSON (the metrics snapshot, serialised and encoded once). */
  readonly json?: string | Uint8Array;
  /**
   * A body that is not JSON, with its media type (the Prometheus exposition of GET /metrics; an
   * OTLP protobuf answer, whose bytes may be none at all).
   */
  readonly text?: { readonly contentType: string; readonly body: string | Uint8Array };
  readonly headers?: Readonly<Record<string, string>>;
  /** Ask the client to close the connection after this answer. */
  readonly close?: boolean;
  /** A body written in chunks as it is produced (the event export: src/http/stream-reply.ts). */
  readonly stream?: StreamBody;
}

/** Writes chunks of a streamed answer, waiting while the client's socket is backed up. */
export interface ChunkWriter {
  /** Resolves once uWS holds the chunk and has room for more; false once the client is gone. */
  write(chunk: string): Promise<boolean>;
}

export interface StreamBody {
  readonly contentType: string;
  /** Writes the whole body through `out`; it must stop writing once a write answers false. */
  produce(out: ChunkWriter): Promise<void>;
  /** Called instead of produce when the client left before the answer began. */
  cancel(): void;
}

/** Counts the answers of one route by outcome (ingest: src/http/ingest-answers.ts). */
export interface ReplyCounter {
  /** Called once per answer sent, on the front thread: it must cost no more than an increment. */
  count(reply: Reply): void;
}

export interface Exchange {
  readonly res: uWS.HttpResponse;
  /** A HEAD request: the answer's status and headers, with the body's length but not the body. */
  readonly head: boolean;
  aborted: boolean;
  answered: boolean;
  /** A listed browser origin the answer lets read it (CORS); absent: no CORS headers. */
  corsOrigin?: string;
  /** Told of the answer when it is sent; absent on routes whose answers are not counted. */
  readonly counter?: ReplyCounter | undefined;
}

const statusLines = new Map<number, string>();
const statusLine = (status: number): string => {
  let line = statusLines.get(status);
  if (line === undefined) {
    line = `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
    statusLines.set(status, line);
  }
  return line;
};

/** The status line and headers of an answer (inside the caller's cork); also a streamed one's. */
export function writeHead(
  exchange: Exchange,
  reply: Pick<Reply, 'status' | 'headers'>,
  contentType: string | undefined,
): void {
  const res = exchange.res;
  res.writeStatus(statusLine(reply.status));
  if (contentType !== undefined) res.writeHeader('Content-Type', contentType);
  // API answers are data for one caller: never sniffed as something else, never cached.
  res.writeHeader('X-Content-Type-Options', 'nosniff');
  res.writeHeader('Cache-Control', 'no-store');
  if (exchange.corsOrigin !== undefined) {
    res.writeHeader('Access-Control-Allow-Origin', exchange.corsOrigin);
    res.writeHeader('Access-Control-Expose-Headers', 'Retry-After, WWW-Authenticate');
    res.writeHeader('Vary', 'Origin');
  }
  const headers = reply.headers;
  if (headers !== undefined) {
    for (const name in headers) res.writeHeader(name, headers[name] as string);
  }
}

export function send(exchange: Exchange, reply: Reply): void {
  if (exchange.aborted || exchange.answered) return;
  exchange.answered = true;
  exchange.counter?.count(reply);
  const payload =
    reply.json ??
    reply.text?.body ??
    (reply.body === undefined ? undefined : JSON.stringify(reply.body));
  exchange.res.cork(() => {
    const res = exchange.res;
    writeHead(
      exchange,
      reply,
      payload === undefined ? undefined : (reply.text?.contentType ?? 'application/json'),
    );
    // uWS does not count endWithoutBody (HEAD, 204) as an answer inside a synchronous handler:
    // without an abort handler it would abort the process.
    if (payload === undefined || exchange.head) res.onAborted(() => (exchange.aborted = true));
    if (payload === undefined) res.endWithoutBody(0, reply.close === true);
    // uWS cannot keep a connection usable after announcing a length it does not send: close it.
    else if (exchange.head) res.endWithoutBody(Buffer.byteLength(payload), true);
    else res.end(payload, reply.close === true);
  });
}
