/**
 * @module One receiving request of an xhr session (POST .../xhr or .../xhr_streaming): a uWS
 * response held open until there is something to say. Tracks what uWS could not hand to the kernel
 * yet, so the session's buffer bound covers it, and never touches a response the client left.
 */
import type { HttpResponse } from 'uWebSockets.js';
import { JAVASCRIPT, writeHead } from './http.ts';

/** 2048 `h` and a newline: what old browsers need before they hand a streamed body to the page. */
const PRELUDE = 'h'.repeat(2048) + '\n';

export class Receiver {
  /** Body bytes written, prelude excluded (xhr-streaming ends a response past its limit). */
  written = 0;
  /** Bytes uWS still holds for this response. */
  backlog = 0;
  lastWriteAt: number;
  private done = false;

  /** Call inside the request handler: writes the head (and the prelude when streaming). */
  constructor(
    private readonly res: HttpResponse,
    readonly streaming: boolean,
    origin: string,
    now: number,
    onGone: () => void,
  ) {
    this.lastWriteAt = now;
    res.onAborted(() => {
      this.done = true;
      onGone();
    });
    writeHead(res, 200, JAVASCRIPT, origin);
    if (streaming) this.raw(PRELUDE);
  }

  get open(): boolean {
    return !this.done;
  }

  /** One or more frames, each ending in a newline. */
  write(text: string, now: number): void {
    if (this.done) return;
    this.lastWriteAt = now;
    this.written += Buffer.byteLength(text);
    this.res.cork(() => this.raw(text));
  }

  end(text: string): void {
    if (this.done) return;
    this.done = true;
    this.res.cork(() => this.res.end(text));
  }

  private raw(text: string): void {
    if (this.res.write(text)) return;
    const before = this.backlog;
    this.backlog += Buffer.byteLength(text);
    if (before === 0) {
      this.res.onWritable(() => {
        this.backlog = 0;
        return true;
      });
    }
  }
}
