// STOMP 1.2 frame codec (pure, no I/O): bytes from WebSocket messages -> frames, frames -> bytes.
// Runs on the front thread, one FrameDecoder per socket; every failure is returned as data.

export interface StompFrame {
  readonly command: string;
  /** Decoded headers; for a repeated header the first occurrence wins (spec 1.2). */
  readonly headers: ReadonlyMap<string, string>;
  /** A copy: the caller's input buffer may be neutered once the callback returns (uWS). */
  readonly body: Uint8Array;
}

export type FrameErrorCode =
  'frame-too-large' | 'malformed-frame' | 'invalid-escape' | 'invalid-content-length';

export interface FrameError {
  readonly code: FrameErrorCode;
  readonly message: string;
}

export interface DecodeResult {
  /** Frames completed by this chunk, in order (also those before an error). */
  readonly frames: StompFrame[];
  /** Set once the stream is unusable; every later push returns the same error. */
  readonly error: FrameError | null;
}

export interface OutgoingFrame {
  readonly command: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body?: string | Uint8Array;
}

const LF = 0x0a;
const CR = 0x0d;
const NUL = 0x00;
const MAX_COMMAND_BYTES = 32;

/** CONNECT, STOMP and CONNECTED keep ':' and newlines literal, for STOMP 1.0 compatibility. */
const UNESCAPED_COMMANDS: ReadonlySet<string> = new Set(['CONNECT', 'STOMP', 'CONNECTED']);

const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

type Step =
  | { readonly kind: 'frame'; readonly frame: StompFrame; readonly next: number }
  | { readonly kind: 'incomplete' }
  | { readonly kind: 'error'; readonly error: FrameError };

const INCOMPLETE: Step = { kind: 'incomplete' };

function fail(code: FrameErrorCode, message: string): Step {
  return { kind: 'error', error: { code, message } };
}

/**
 * Incremental decoder for one connection. A WebSocket message may carry several frames, heart-beat
 * EOLs, or only part of a frame; the unfinished part is kept (copied) until the rest arrives.
 */
export class FrameDecoder {
  /** Header values are unescaped unless the session negotiated STOMP 1.0. */
  unescapeHeaders = true;
  private pending = new Uint8Array(0);
  private pendingLength = 0;
  private failure: FrameError | null = null;

  constructor(private readonly maxFrameBytes: number) {}

  /** Bytes of an unfinished frame currently held (bounded by maxFrameBytes). */
  get bufferedBytes(): number {
    return this.pendingLength;
  }

  push(chunk: Uint8Array): DecodeResult {
    if (this.failure !== null) return { frames: [], error: this.failure };
    let input = chunk;
    if (this.pendingLength > 0) {
      // A frame always ends with NUL: without one in the new bytes the pending frame cannot
      // complete, so append without rescanning (keeps many tiny messages linear, not quadratic).
      const canComplete = chunk.indexOf(NUL) !== -1;
      this.append(chunk);
      if (!canComplete) {
        this.dropLeadingEols();
        return this.checkPendingSize([]);
      }
      input = this.pending.subarray(0, this.pendingLength);
    }
    const frames: StompFrame[] = [];
    let pos = 0;
    for (;;) {
      // Heart-beats (and the optional EOLs after a frame) are bare EOLs between frames.
      while (pos < input.length) {
        const byte = input[pos];
        if (byte === LF) pos += 1;
        else if (byte === CR && pos + 1 < input.length && input[pos + 1] === LF) pos += 2;
        else break;
      }
      if (pos >= input.length) {
        this.pendingLength = 0;
        return { frames, error: null };
      }
      const step = this.decodeOne(input, pos);
      if (step.kind === 'error') return this.fail(frames, step.error);
      if (step.kind === 'incomplete') {
        this.keep(input, pos);
        return this.checkPendingSize(frames);
      }
      frames.push(step.frame);
      pos = step.next;
    }
  }

  private decodeOne(buf: Uint8Array, start: number): Step {
    // Command line: upper-case letters only, so garbage is refused at its first byte.
    let cmdEnd = -1;
    for (let i = start; i < buf.length; i++) {
      const byte = buf[i];
      if (byte === LF) {
        cmdEnd = i;
        break;
      }
      if (byte !== undefined && byte >= 0x41 && byte <= 0x5a) {
        if (i - start >= MAX_COMMAND_BYTES) return fail('malformed-frame', 'command too long');
        continue;
      }
      if (byte === CR && (i + 1 === buf.length || buf[i + 1] === LF)) continue;
      return fail('malformed-frame', 'invalid byte in command line');
    }
    if (cmdEnd === -1) return INCOMPLETE;
    const command = latin1(buf, start, buf[cmdEnd - 1] === CR ? cmdEnd - 1 : cmdEnd);
    if (command.length === 0) return fail('malformed-frame', 'empty command');

    // Header block: lines up to the first empty line.
    const headersStart = cmdEnd + 1;
    const blockEnd = findBlankLine(buf, headersStart);
    if (blockEnd === null) {
      return buf.length - start > this.maxFrameBytes
        ? fail('frame-too-large', `frame exceeds ${this.maxFrameBytes} bytes`)
        : INCOMPLETE;
    }
    const { headersEnd, bodyStart } = blockEnd;
    const headers = this.decodeHeaders(command, buf, headersStart, headersEnd);
    if (!(headers instanceof Map)) return headers;

    // Body: content-length octets (NULs allowed) then NUL, or everything up to the first NUL.
    let bodyEnd: number;
    const contentLength = headers.get('content-length');
    if (contentLength !== undefined) {
      if (!/^[0-9]{1,15}$/.test(contentLength)) {
        return fail('invalid-content-length', `invalid content-length '${contentLength}'`);
      }
      const length = Number(contentLength);
      if (bodyStart - start + length + 1 > this.maxFrameBytes) {
        return fail('frame-too-large', `frame exceeds ${this.maxFrameBytes} bytes`);
      }
      bodyEnd = bodyStart + length;
      if (bodyEnd >= buf.length) return INCOMPLETE;
      if (buf[bodyEnd] !== NUL) {
        return fail('malformed-frame', 'frame does not end with NUL after content-length octets');
      }
    } else {
      bodyEnd = buf.indexOf(NUL, bodyStart);
      if (bodyEnd === -1) return INCOMPLETE;
    }
    if (bodyEnd + 1 - start > this.maxFrameBytes) {
      return fail('frame-too-large', `frame exceeds ${this.maxFrameBytes} bytes`);
    }
    const body = buf.slice(bodyStart, bodyEnd);
    return { kind: 'frame', frame: { command, headers, body }, next: bodyEnd + 1 };
  }

  private decodeHeaders(
    command: string,
    buf: Uint8Array,
    from: number,
    to: number,
  ): Map<string, string> | Step {
    const headers = new Map<string, string>();
    if (to <= from) return headers;
    let text: string;
    try {
      text = utf8.decode(buf.subarray(from, to));
    } catch {
      return fail('malformed-frame', 'headers are not valid UTF-8');
    }
    const unescape = this.unescapeHeaders && !UNESCAPED_COMMANDS.has(command);
    // The block ends with the last header's EOL, so the final split element is empty.
    const lines = text.split('\n');
    lines.pop();
    for (const rawLine of lines) {
      const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
      const colon = line.indexOf(':');
      if (colon <= 0) return fail('malformed-frame', 'header line without a name and colon');
      let name = line.slice(0, colon);
      let value = line.slice(colon + 1);
      if (unescape) {
        const decodedName = unescapeHeader(name);
        const decodedValue = unescapeHeader(value);
        if (decodedName === null || decodedValue === null) {
          return fail('invalid-escape', 'undefined escape sequence in a header');
        }
        name = decodedName;
        value = decodedValue;
      }
      if (!headers.has(name)) headers.set(name, value);
    }
    return headers;
  }

  private append(chunk: Uint8Array): void {
    const needed = this.pendingLength + chunk.length;
    if (needed > this.pending.length) {
      const grown = new Uint8Array(Math.max(needed, this.pending.length * 2, 256));
      grown.set(this.pending.subarray(0, this.pendingLength));
      this.pending = grown;
    }
    this.pending.set(chunk, this.pendingLength);
    this.pendingLength = needed;
  }

  /** Heart-beats split across messages (CR | LF) must not pile up in the pending buffer. */
  private dropLeadingEols(): void {
    let pos = 0;
    while (pos < this.pendingLength) {
      const byte = this.pending[pos];
      if (byte === LF) pos += 1;
      else if (byte === CR && pos + 1 < this.pendingLength && this.pending[pos + 1] === LF)
        pos += 2;
      else break;
    }
    if (pos === 0) return;
    this.pending.copyWithin(0, pos, this.pendingLength);
    this.pendingLength -= pos;
  }

  /** Keeps input[from..] as the pending partial frame (a copy: input may be neutered later). */
  private keep(input: Uint8Array, from: number): void {
    const rest = input.subarray(from);
    if (input.buffer === this.pending.buffer) {
      this.pending.copyWithin(0, from, this.pendingLength);
      this.pendingLength = rest.length;
      return;
    }
    this.pendingLength = 0;
    this.append(rest);
  }

  private checkPendingSize(frames: StompFrame[]): DecodeResult {
    if (this.pendingLength > this.maxFrameBytes) {
      return this.fail(frames, {
        code: 'frame-too-large',
        message: `frame exceeds ${this.maxFrameBytes} bytes`,
      });
    }
    return { frames, error: null };
  }

  private fail(frames: StompFrame[], error: FrameError): DecodeResult {
    this.failure = error;
    this.pending = new Uint8Array(0);
    this.pendingLength = 0;
    return { frames, error };
  }
}

/** Finds the empty line ending the header block: where headers end and the body starts. */
function findBlankLine(
  buf: Uint8Array,
  from: number,
): { headersEnd: number; bodyStart: number } | null {
  let lineStart = from;
  for (;;) {
    const lf = buf.indexOf(LF, lineStart);
    if (lf === -1) return null;
    const lineEnd = lf > lineStart && buf[lf - 1] === CR ? lf - 1 : lf;
    if (lineEnd === lineStart) return { headersEnd: lineStart, bodyStart: lf + 1 };
    lineStart = lf + 1;
  }
}

function latin1(buf: Uint8Array, from: number, to: number): string {
  let out = '';
  for (let i = from; i < to; i++) out += String.fromCharCode(buf[i] ?? 0);
  return out;
}

/** Decodes \r \n \c \\ ; any other escape is a fatal protocol error (spec 1.2), returned as null. */
export function unescapeHeader(value: string): string | null {
  if (!value.includes('\\')) return value;
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const next = value[++i];
    if (next === 'r') out += '\r';
    else if (next === 'n') out += '\n';
    else if (next === 'c') out += ':';
    else if (next === '\\') out += '\\';
    else return null;
  }
  return out;
}

const ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '\r': '\\r',
  '\n': '\\n',
  ':': '\\c',
};

export function escapeHeader(value: string): string {
  return /[\\\r\n:]/.test(value) ? value.replace(/[\\\r\n:]/g, (ch) => ESCAPES[ch] ?? ch) : value;
}

export interface EncodeOptions {
  /** Escape header names and values (STOMP 1.1+). Never applied to CONNECT/CONNECTED. Default true. */
  readonly escape?: boolean;
  /** Add content-length for a non-empty body. Default true. */
  readonly contentLength?: boolean;
}

/** Serialises a frame: command, headers, blank line, body, NUL. */
export function encodeFrame(frame: OutgoingFrame, options: EncodeOptions = {}): Uint8Array {
  const escape = (options.escape ?? true) && !UNESCAPED_COMMANDS.has(frame.command);
  const body =
    frame.body === undefined
      ? new Uint8Array(0)
      : typeof frame.body === 'string'
        ? encoder.encode(frame.body)
        : frame.body;
  let head = frame.command + '\n';
  for (const [name, value] of frame.headers) {
    head += escape ? `${escapeHeader(name)}:${escapeHeader(value)}\n` : `${name}:${value}\n`;
  }
  if ((options.contentLength ?? true) && body.length > 0) {
    head += `content-length:${body.length}\n`;
  }
  head += '\n';
  const headBytes = encoder.encode(head);
  const out = new Uint8Array(headBytes.length + body.length + 1);
  out.set(headBytes, 0);
  out.set(body, headBytes.length);
  out[out.length - 1] = NUL;
  return out;
}

/** One heart-beat: a single EOL (spec 1.2, Heart-beating). */
export const HEARTBEAT: Uint8Array = Uint8Array.of(LF);
