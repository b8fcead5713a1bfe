// Fan-out of MESSAGE frames to subscribed sockets, respecting each socket's backpressure.
// Runs on the front thread. Knows sockets only through BroadcastSocket, so it is testable without uWS.
//
// One send per session, deliberately not uWS pub/sub (ws.subscribe + app.publish): uWS writes a
// message of 16 KiB or more to a socket that is in no topic straight from our buffer (one writev,
// no copy); a socket in a topic gets a malloc and a copy of the whole frame on every send, published
// or not. Measured with 1,000 sessions x 102 KB: about 30 ms of front-thread CPU per tick either
// way in the kernel, plus 0-3 ms of user time here against 11-15 ms with topics.
import type { EventRecord } from '../domain/event.ts';
import { matches, NO_FILTER, type EventFilter } from '../domain/event-search/filter.ts';
import { escapeHeader } from './frame.ts';
import { EVENTS_DESTINATION, type Destination } from './session.ts';

/** The part of a uWS WebSocket the broadcaster uses (uWS sockets satisfy it structurally). */
export interface BroadcastSocket {
  /** uWS: 1 sent, 0 buffered (backpressure), 2 dropped (over maxBackpressure). */
  send(message: Uint8Array, isBinary?: boolean): number;
  getBufferedAmount(): number;
}

/** Per-session facts the broadcaster needs; StompSession implements it. */
export interface SubscriberOwner {
  readonly escapesHeaders: boolean;
  nextMessageId(): string;
  noteSent(now: number): void;
}

export interface BroadcasterOptions<S> {
  /** Skip a socket while more than this many bytes wait in its user-space send buffer. */
  readonly softBufferBytes: number;
  /**
   * Close a socket once its buffer holds more than this beyond the last MESSAGE sent to it. That
   * frame is not counted: a snapshot may be larger than any fixed limit, and a reader that is
   * draining it is healthy (it got the frame only with at most softBufferBytes waiting).
   */
  readonly hardBufferBytes: number;
  /** Close a socket that stays over the soft limit this long (a client that stopped reading). */
  readonly slowClientTimeoutMs: number;
  /**
   * /topic/events: the events per second one subscription gets (a burst of as many); beyond it, and
   * while its socket is over the soft limit, events are dropped and counted (`dropped` header).
   */
  readonly tailEventsPerSecond?: number;
  /** Must close the socket; called after the fan-out loop, never during it. */
  readonly closeSlow: (socket: S, reason: 'hard-limit' | 'dropped' | 'stalled') => void;
}

export interface BroadcastStats {
  published: number;
  delivered: number;
  skipped: number;
  closedSlow: number;
  /** /topic/events frames dropped: over a subscription's rate, or its socket backed up. */
  tailDropped: number;
}

/** A live tail subscription's filter and bound. */
interface Tail {
  readonly filter: EventFilter;
  /** Token bucket: events it may still get now, refilled at tailEventsPerSecond. */
  tokens: number;
  refilledAt: number;
  /** Events dropped since it subscribed; sent as `dropped:<n>` on each of its frames. */
  dropped: number;
}

interface Target<S> {
  readonly socket: S;
  readonly owner: SubscriberOwner;
  /** Since when the socket has been over the soft limit; null while it keeps up. */
  overSoftSince: number | null;
  readonly routes: Map<string, Route<S>>;
}

interface Route<S> {
  readonly target: Target<S>;
  readonly destination: Destination;
  /** The MESSAGE header block up to `message-id:`, fixed for the subscription's lifetime. */
  readonly headPrefix: string;
  /** Repeat the message-id as `ack` (STOMP 1.2 client / client-individual subscriptions). */
  readonly ackHeader: boolean;
  /** /topic/events only; null elsewhere. */
  readonly tail: Tail | null;
}

interface EncodedBody {
  /** [reserved head room][body][NUL]: each head is written just before the body. */
  readonly buffer: Buffer;
  readonly bodyOffset: number;
  readonly contentLengthLine: string;
}

export const DEFAULT_TAIL_EVENTS_PER_SECOND = 200;

/** Room for the per-session head; longer heads (very long ids) fall back to a concat. */
const HEAD_ROOM = 512;

export class Broadcaster<S extends BroadcastSocket> {
  private readonly targets = new Map<S, Target<S>>();
  private readonly byDestination = new Map<Destination, Set<Route<S>>>();
  /** Bytes of the last MESSAGE sent to each socket: its allowance above hardBufferBytes. */
  private readonly lastFrameBytes = new Map<S, number>();
  private readonly counters: BroadcastStats = {
    published: 0,
    delivered: 0,
    skipped: 0,
    closedSlow: 0,
    tailDropped: 0,
  };

  private readonly tailRate: number;

  constructor(private readonly options: BroadcasterOptions<S>) {
    this.tailRate = options.tailEventsPerSecond ?? DEFAULT_TAIL_EVENTS_PER_SECOND;
  }

  get stats(): Readonly<BroadcastStats> {
    return this.counters;
  }

  subscriptionCount(): number {
    let n = 0;
    for (const routes of this.byDestination.values()) n += routes.size;
    return n;
  }

  add(
    socket: S,
    owner: SubscriberOwner,
    subscriptionId: string,
    destination: Destination,
    ackHeader = false,
    filter: EventFilter | null = null,
    now = 0,
  ): void {
    this.remove(socket, subscriptionId);
    let target = this.targets.get(socket);
    if (target === undefined) {
      target = { socket, owner, overSoftSince: null, routes: new Map() };
      this.targets.set(socket, target);
    }
    const esc = (v: string): string => (owner.escapesHeaders ? escapeHeader(v) : v);
    const route: Route<S> = {
      target,
      destination,
      headPrefix:
        `MESSAGE\ndestination:${esc(destination)}\ncontent-type:application/json\n` +
        `subscription:${esc(subscriptionId)}\nmessage-id:`,
      ackHeader,
      tail:
        destination === EVENTS_DESTINATION
          ? {
              filter: filter ?? NO_FILTER,
              tokens: this.tailRate,
              refilledAt: now,
              dropped: 0,
            }
          : null,
    };
    target.routes.set(subscriptionId, route);
    let routes = this.byDestination.get(destination);
    if (routes === undefined) {
      routes = new Set();
      this.byDestination.set(destination, routes);
    }
    routes.add(route);
  }

  remove(socket: S, subscriptionId: string): void {
    const target = this.targets.get(socket);
    const route = target?.routes.get(subscriptionId);
    if (target === undefined || route === undefined) return;
    target.routes.delete(subscriptionId);
    this.byDestination.get(route.destination)?.delete(route);
    if (target.routes.size === 0) this.targets.delete(socket);
  }

  removeSocket(socket: S): void {
    this.lastFrameBytes.delete(socket);
    const target = this.targets.get(socket);
    if (target === undefined) return;
    for (const route of target.routes.values()) {
      this.byDestination.get(route.destination)?.delete(route);
    }
    this.targets.delete(socket);
  }

  /** One serialisation of the body; per subscription only the head (ids) is written. */
  publish(destination: Destination, bodyJson: string, now: number): void {
    this.counters.published += 1;
    const routes = this.byDestination.get(destination);
    if (routes === undefined || routes.size === 0) return;
    const body = encodeBody(bodyJson);
    const toClose = new Map<S, 'hard-limit' | 'dropped' | 'stalled'>();
    for (const route of routes) this.deliver(route, body, now, toClose);
    this.closeAll(toClose);
  }

  /** Whether anyone tails /topic/events (else the ingest path builds no record for it). */
  tailing(): boolean {
    return (this.byDestination.get(EVENTS_DESTINATION)?.size ?? 0) > 0;
  }

  /**
   * Stored events to the /topic/events subscriptions whose filter they pass, each serialised once
   * (when a first subscription wants it), within each subscription's rate.
   */
  publishEvents(events: readonly EventRecord[], now: number): void {
    const routes = this.byDestination.get(EVENTS_DESTINATION);
    if (routes === undefined || routes.size === 0) return;
    this.counters.published += events.length;
    const bodies = new Array<EncodedBody | undefined>(events.length);
    const toClose = new Map<S, 'hard-limit' | 'dropped' | 'stalled'>();
    for (const route of routes) {
      const tail = route.tail as Tail;
      for (let i = 0; i < events.length; i++) {
        const event = events[i] as EventRecord;
        if (!matches(tail.filter, event)) continue;
        if (!this.takeToken(tail, now)) {
          tail.dropped += 1;
          this.counters.tailDropped += 1;
          continue;
        }
        bodies[i] ??= encodeBody(JSON.stringify(event));
        if (!this.deliver(route, bodies[i] as EncodedBody, now, toClose)) {
          tail.dropped += 1;
          this.counters.tailDropped += 1;
        }
      }
    }
    this.closeAll(toClose);
  }

  private takeToken(tail: Tail, now: number): boolean {
    const rate = this.tailRate;
    if (now > tail.refilledAt) {
      tail.tokens = Math.min(rate, tail.tokens + ((now - tail.refilledAt) * rate) / 1000);
      tail.refilledAt = now;
    }
    if (tail.tokens < 1) return false;
    tail.tokens -= 1;
    return true;
  }

  /**
   * After a send outside the broadcaster (a RECEIPT, an ERROR, a heart-beat): closes the socket,
   * and answers true, when its buffer is over the hard limit (a client that sends but never reads).
   */
  closeIfOverHardLimit(socket: S): boolean {
    if (!this.overHardLimit(socket)) return false;
    this.closeAll(new Map([[socket, 'hard-limit']]));
    return true;
  }

  private overHardLimit(socket: S): boolean {
    const allowance = this.lastFrameBytes.get(socket) ?? 0;
    return socket.getBufferedAmount() > this.options.hardBufferBytes + allowance;
  }

  /** The current snapshot for a new subscriber, through the same backpressure rules. */
  sendTo(socket: S, subscriptionId: string, bodyJson: string, now: number): void {
    const route = this.targets.get(socket)?.routes.get(subscriptionId);
    if (route === undefined) return;
    const toClose = new Map<S, 'hard-limit' | 'dropped' | 'stalled'>();
    this.deliver(route, encodeBody(bodyJson), now, toClose);
    this.closeAll(toClose);
  }

  private deliver(
    route: Route<S>,
    body: EncodedBody,
    now: number,
    toClose: Map<S, 'hard-limit' | 'dropped' | 'stalled'>,
  ): boolean {
    const target = route.target;
    if (toClose.has(target.socket)) return false;
    if (this.overHardLimit(target.socket)) {
      toClose.set(target.socket, 'hard-limit');
      return false;
    }
    const buffered = target.socket.getBufferedAmount();
    if (buffered > this.options.softBufferBytes) {
      // Skipped, not queued: the next publish carries newer data, so memory stays bounded.
      this.counters.skipped += 1;
      target.overSoftSince ??= now;
      if (now - target.overSoftSince >= this.options.slowClientTimeoutMs) {
        toClose.set(target.socket, 'stalled');
      }
      return false;
    }
    target.overSoftSince = null;
    const messageId = target.owner.nextMessageId();
    const head =
      route.headPrefix +
      messageId +
      (route.ackHeader ? `\nack:${messageId}` : '') +
      (route.tail === null ? '' : `\ndropped:${route.tail.dropped}`) +
      body.contentLengthLine;
    const headBytes = Buffer.byteLength(head, 'utf8');
    let message: Buffer;
    if (headBytes <= body.bodyOffset) {
      const start = body.bodyOffset - headBytes;
      body.buffer.write(head, start, 'utf8');
      message = body.buffer.subarray(start);
    } else {
      message = Buffer.concat([Buffer.from(head, 'utf8'), body.buffer.subarray(body.bodyOffset)]);
    }
    // uWS copies the bytes during send, so the shared buffer may be rewritten for the next one.
    const status = target.socket.send(message, false);
    if (status === 2) {
      toClose.set(target.socket, 'dropped');
      return false;
    }
    this.counters.delivered += 1;
    target.owner.noteSent(now);
    // Sent with at most softBufferBytes waiting, so the frame alone cannot make this socket over
    // the limit: only what was queued around it can.
    this.lastFrameBytes.set(target.socket, message.length);
    if (this.overHardLimit(target.socket)) toClose.set(target.socket, 'hard-limit');
    return true;
  }

  private closeAll(toClose: Map<S, 'hard-limit' | 'dropped' | 'stalled'>): void {
    for (const [socket, reason] of toClose) {
      this.counters.closedSlow += 1;
      this.removeSocket(socket);
      this.options.closeSlow(socket, reason);
    }
  }
}

function encodeBody(bodyJson: string): EncodedBody {
  const bodyBytes = Buffer.byteLength(bodyJson, 'utf8');
  const buffer = Buffer.allocUnsafe(HEAD_ROOM + bodyBytes + 1);
  buffer.write(bodyJson, HEAD_ROOM, 'utf8');
  buffer[HEAD_ROOM + bodyBytes] = 0;
  return {
    buffer,
    bodyOffset: HEAD_ROOM,
    contentLengthLine: `\ncontent-length:${bodyBytes}\n\n`,
  };
}
