/**
 * @module One SockJS session on the xhr transports (front thread): the STOMP frames waiting for the
 * next receiving request, that request, and the session's deadlines. A session with no receiving
 * request for `disconnectMs` ends; once ended it answers its close frame for as long again.
 */
import type { Link, StompHub } from '../hub.ts';
import type { StompTransport } from '../transport.ts';
import { closeFrame, HEARTBEAT_FRAME, messageFrame, OPEN_FRAME } from './framing.ts';
import type { Receiver } from './receiver.ts';

export interface XhrTimings {
  readonly heartbeatMs: number;
  readonly disconnectMs: number;
  /** xhr-streaming: bytes one response carries before it ends (the client opens the next). */
  readonly responseLimitBytes: number;
}

/** A client polled, or ended, without reading for longer than this: it went away. */
const TIMED_OUT = closeFrame(1002, 'Connection interrupted');
const ANOTHER_RECEIVER = closeFrame(2010, 'Another connection still open') + '\n';

export class XhrSession implements StompTransport {
  link: Link | null = null;
  private queue: string[] = [];
  private queuedBytes = 0;
  private receiver: Receiver | null = null;
  /** The close frame, once the session ended; then it is only kept to answer it. */
  private closing: string | null = null;
  /** When the last receiving request ended (or the session ended). */
  private idleSince: number;
  private flushPending = false;

  constructor(
    readonly address: string,
    private readonly hub: StompHub,
    private readonly timings: XhrTimings,
    now: number,
  ) {
    this.idleSince = now;
  }

  get ended(): boolean {
    return this.closing !== null;
  }

  send(frame: Uint8Array): number {
    if (this.closing !== null) return 2;
    const text = Buffer.from(frame).toString('utf8');
    this.queue.push(text);
    this.queuedBytes += Buffer.byteLength(text);
    this.scheduleFlush();
    return this.receiver === null ? 0 : 1;
  }

  getBufferedAmount(): number {
    return this.queuedBytes + (this.receiver?.backlog ?? 0);
  }

  end(code: number, reason: string): void {
    this.finish(closeFrame(code, reason), false);
  }

  close(): void {
    this.finish(closeFrame(1008, 'client too slow'), true);
  }

  /** The first receiving request: `o`, and for xhr-polling nothing else. */
  opened(receiver: Receiver, now: number): void {
    if (receiver.streaming) {
      receiver.write(OPEN_FRAME + '\n', now);
      this.receiver = receiver;
    } else {
      receiver.end(OPEN_FRAME + '\n');
      this.idleSince = now;
    }
  }

  /** A later receiving request. */
  attach(receiver: Receiver, now: number): void {
    if (this.receiver?.open === true) {
      receiver.end(ANOTHER_RECEIVER);
      return;
    }
    this.receiver = receiver;
    if (this.queue.length > 0 || this.closing !== null) this.flush(now);
  }

  /** The receiving request went away (the client aborted it). */
  gone(receiver: Receiver, now: number): void {
    if (this.receiver !== receiver) return;
    this.receiver = null;
    this.idleSince = now;
  }

  /**
   * Heart-beat and deadline: false once the session may be forgotten (ended, and its close frame
   * kept long enough).
   */
  tick(now: number): boolean {
    const receiver = this.receiver;
    if (receiver !== null && receiver.open) {
      if (now - receiver.lastWriteAt >= this.timings.heartbeatMs)
        this.deliver(HEARTBEAT_FRAME + '\n', now);
      return true;
    }
    if (now - this.idleSince < this.timings.disconnectMs) return true;
    if (this.closing === null) {
      this.finish(TIMED_OUT, true);
      return true;
    }
    return false;
  }

  private finish(frame: string, dropQueued: boolean): void {
    if (this.closing !== null) return;
    this.closing = frame;
    // Kept, to answer its close frame, for disconnectMs after its last receiving request.
    if (this.receiver === null) this.idleSince = Date.now();
    if (dropQueued) {
      this.queue = [];
      this.queuedBytes = 0;
    }
    if (this.link !== null) this.hub.closed(this.link);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushPending || this.receiver === null) return;
    this.flushPending = true;
    // Frames produced in one turn (CONNECTED and a snapshot, an ERROR and the close) go in one write.
    queueMicrotask(() => {
      this.flushPending = false;
      this.flush(Date.now());
    });
  }

  private flush(now: number): void {
    if (this.receiver === null || !this.receiver.open) return;
    let text = '';
    if (this.queue.length > 0) {
      text = messageFrame(this.queue) + '\n';
      this.queue = [];
      this.queuedBytes = 0;
    }
    if (this.closing !== null) text += this.closing + '\n';
    if (text === '') return;
    this.deliver(text, now);
    if (this.closing !== null) this.endReceiver(now);
  }

  /** Polling: one answer per request; streaming: until the response carried its limit. */
  private deliver(text: string, now: number): void {
    const receiver = this.receiver;
    if (receiver === null) return;
    if (!receiver.streaming) {
      receiver.end(text);
      this.receiver = null;
      this.idleSince = now;
      return;
    }
    receiver.write(text, now);
    if (receiver.written >= this.timings.responseLimitBytes) this.endReceiver(now);
  }

  private endReceiver(now: number): void {
    this.receiver?.end('');
    this.receiver = null;
    this.idleSince = now;
  }
}
