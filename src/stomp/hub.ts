/**
 * @module The STOMP sessions of every transport (front thread): their places in MAX_CONNECTIONS and
 * the unauthenticated pool, one shared timer for heart-beats and deadlines, and the broadcaster.
 * A transport (raw WebSocket in endpoint.ts, SockJS in sockjs/) asks `admit`, then `open`s a
 * session, feeds it with `receive` and reports its end with `closed`. No method throws.
 */
import { UNLIMITED_CONNECTIONS } from '../http/connection-limit.ts';
import { Broadcaster, DEFAULT_TAIL_EVENTS_PER_SECOND } from './broadcaster.ts';
import type { BroadcastSocket } from './broadcaster.ts';
import { encodeFrame } from './frame.ts';
import { tickInterval, type Resolved, type StompEndpoint } from './options.ts';
import type { StompEndpointOptions } from './options.ts';
import { CLOSE_GOING_AWAY, StompSession } from './session.ts';
import type { SessionAction, SessionConfig, StompVersion } from './session.ts';
import type { StompTransport } from './transport.ts';
import { UNLIMITED_POOL } from './unauthenticated-pool.ts';

/** WebSocket close code 1013, Try Again Later (RFC 6455 registry): MAX_CONNECTIONS reached. */
export const CLOSE_TRY_AGAIN_LATER = 1013;

/** Which count a session holds a place in. */
interface Seat {
  readonly address: string;
  holds: 'unauthenticated' | 'connection' | 'none';
}

/** One session on its transport; the broadcaster's socket. */
export class Link implements BroadcastSocket {
  constructor(
    readonly transport: StompTransport,
    readonly session: StompSession,
    readonly seat: Seat,
  ) {}

  send(message: Uint8Array): number {
    return this.transport.send(message);
  }

  getBufferedAmount(): number {
    return this.transport.getBufferedAmount();
  }
}

/** Why a new transport may not open now: the HTTP status and a sentence for the client. */
export interface Refusal {
  readonly status: 403 | 429 | 503;
  readonly message: string;
  /** The refusal is about load: the client may retry in a second. */
  readonly retryAfter: boolean;
}

export interface StompHub extends StompEndpoint {
  readonly config: Resolved;
  readonly log: StompEndpointOptions['log'];
  /**
   * Whether a transport from `address` may open now; `origin` is the request's Origin header ('' for
   * none: not a browser, not asked about), `host` its Host header. May close another address's
   * oldest silent session to make room. Null: it may.
   */
  admit(address: string, origin: string, host: string): Refusal | null;
  /** Whether a browser page of `origin` may use the endpoint (`host`: the request's Host header). */
  originAllowed(origin: string, host: string): boolean;
  /** A new session on `transport`; null when its place was taken meanwhile (the transport is ended). */
  open(transport: StompTransport, address: string, maxVersion: StompVersion): Link | null;
  /** Bytes of STOMP frames from the client. */
  receive(link: Link, data: Uint8Array): void;
  /** The transport is gone: the session's place is given back. Idempotent. */
  closed(link: Link): void;
  /** Runs a transport callback's body: a throw is logged and ends `link`'s transport. */
  guard(where: string, link: Link | null, fn: () => void): void;
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

export function createHub(config: Resolved, options: StompEndpointOptions): StompHub {
  const {
    log,
    now: clock = Date.now,
    connections = UNLIMITED_CONNECTIONS,
    unauthenticated = UNLIMITED_POOL,
  } = options;
  const tickMs = tickInterval(config);
  const sessionConfig: SessionConfig = {
    server: `vigil/${options.serverVersion}`,
    maxFrameBytes: config.maxFrameBytes,
    heartbeatSendMs: config.heartbeatSendMs,
    heartbeatExpectMs: config.heartbeatExpectMs,
    heartbeatGraceFactor: config.heartbeatGraceFactor,
    heartbeatSlackMs: tickMs,
    connectTimeoutMs: config.connectTimeoutMs,
    maxSubscriptions: config.maxSubscriptions,
    maxSubscriptionIdLength: 256,
    ...(options.authenticate === undefined ? {} : { authenticate: options.authenticate }),
  };
  const sessions = new Set<Link>();
  /** The sessions holding an unauthenticated-pool place, oldest first (eviction scans these only). */
  const pending = new Set<Link>();
  let nextSessionId = 0;
  let accepting = true;
  let timer: NodeJS.Timeout | null = null;
  let lastTickAt = 0;

  const broadcaster = new Broadcaster<Link>({
    softBufferBytes: config.softBufferBytes,
    hardBufferBytes: config.hardBufferBytes,
    tailEventsPerSecond: options.tailEventsPerSecond ?? DEFAULT_TAIL_EVENTS_PER_SECOND,
    slowClientTimeoutMs: config.slowClientTimeoutMs,
    closeSlow: (link, reason) => {
      if (!sessions.has(link)) return;
      log.info({ session: link.session.id, reason }, 'stomp: closing slow client');
      // Forceful: a graceful close frame would only queue behind the data it cannot drain.
      link.transport.close();
    },
  });

  function guard(where: string, link: Link | null, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      log.warn({ where, err: describe(err) }, 'stomp: handler failed');
      if (link !== null && sessions.has(link)) {
        try {
          link.transport.close();
        } catch {
          // Already closed: nothing left to release.
        }
      }
    }
  }

  function currentSnapshot(): string | null {
    try {
      return options.currentMetricsJson();
    } catch (err) {
      log.warn({ err: describe(err) }, 'stomp: currentMetricsJson failed');
      return null;
    }
  }

  /** The current snapshot to each of the session's /topic/metrics subscriptions (or just `id`). */
  function sendSnapshot(link: Link, now: number, id?: string): void {
    const snapshot = currentSnapshot();
    if (snapshot === null) return;
    for (const [subscription, destination] of link.session.subscriptions) {
      if (destination !== '/topic/metrics' || (id !== undefined && subscription !== id)) continue;
      broadcaster.sendTo(link, subscription, snapshot, now);
      if (!sessions.has(link)) return;
    }
  }

  function perform(link: Link, actions: SessionAction[], now: number): void {
    const { session, transport } = link;
    for (const action of actions) {
      // A send over the hard limit, or a slow-client close, may have ended the session midway.
      if (!sessions.has(link)) return;
      switch (action.type) {
        case 'send':
          transport.send(action.data);
          if (broadcaster.closeIfOverHardLimit(link)) return;
          break;
        case 'subscribe':
          broadcaster.add(
            link,
            session,
            action.id,
            action.destination,
            action.ackHeader,
            action.filter,
            now,
          );
          if (action.destination === '/topic/metrics') sendSnapshot(link, now, action.id);
          break;
        case 'snapshot':
          sendSnapshot(link, now);
          break;
        case 'unsubscribe':
          broadcaster.remove(link, action.id);
          break;
        case 'close':
          if (action.reason !== 'DISCONNECT') {
            log.info({ session: session.id, reason: action.reason }, 'stomp: closing session');
          }
          transport.end(action.code, action.reason.slice(0, 120));
          return;
      }
    }
  }

  function tick(): void {
    const now = clock();
    // A tick far behind schedule means the loop stalled: incoming data has not been read yet, so
    // deadlines wait for the next tick (an I/O poll always runs in between).
    const onTime = now - lastTickAt <= 2 * tickMs;
    lastTickAt = now;
    for (const link of sessions) {
      guard('tick', link, () => {
        const actions = link.session.tick(now, onTime);
        if (actions.length > 0) perform(link, actions, now);
      });
    }
  }

  function startTimer(): void {
    if (timer !== null) return;
    lastTickAt = clock();
    timer = setInterval(tick, tickMs);
    // The sockets keep the process alive; the timer alone must not.
    timer.unref();
  }

  function stopTimer(): void {
    if (timer === null) return;
    clearInterval(timer);
    timer = null;
  }

  /** An accepted CONNECT moves the session from the unauthenticated pool to MAX_CONNECTIONS. */
  function promote(link: Link): boolean {
    const { seat } = link;
    pending.delete(link);
    unauthenticated.release(seat.address);
    if (!connections.tryTake()) {
      seat.holds = 'none';
      return false;
    }
    seat.holds = 'connection';
    return true;
  }

  function release(link: Link): void {
    const { seat } = link;
    pending.delete(link);
    if (seat.holds === 'unauthenticated') unauthenticated.release(seat.address);
    else if (seat.holds === 'connection') connections.release();
    seat.holds = 'none';
  }

  /**
   * The pool is full: closes the oldest silent session of the address holding the most places, if
   * it holds more than `address` does, and gives its place back at once. False: none qualifies.
   */
  function evictFor(address: string): boolean {
    let victim: Link | null = null;
    let most = unauthenticated.held(address) + 1;
    // A Set iterates in insertion order: the first session found of an address is its oldest.
    for (const link of pending) {
      const held = unauthenticated.held(link.seat.address);
      if (held > most) {
        victim = link;
        most = held;
      }
    }
    if (victim === null) return false;
    release(victim);
    log.info(
      { session: victim.session.id },
      'stomp: closing a socket without CONNECT to make room',
    );
    victim.transport.end(
      CLOSE_TRY_AGAIN_LATER,
      'too many sockets without CONNECT from this address',
    );
    return true;
  }

  /** MAX_CONNECTIONS was reached while the CONNECT was read: ERROR instead of CONNECTED. */
  function refuseConnected(link: Link): void {
    const message = 'too many connections, retry later';
    log.info({ session: link.session.id }, 'stomp: refusing CONNECT, MAX_CONNECTIONS reached');
    link.transport.send(encodeFrame({ command: 'ERROR', headers: [['message', message]] }));
    link.transport.end(CLOSE_TRY_AGAIN_LATER, message);
  }

  function originAllowed(origin: string, host: string): boolean {
    return options.originAllowed === undefined || options.originAllowed(origin, host);
  }

  return {
    config,
    log,
    guard,
    originAllowed,
    admit(address, origin, host) {
      if (!accepting) return { status: 503, message: 'shutting down', retryAfter: false };
      if (connections.full()) {
        return { status: 503, message: 'too many connections', retryAfter: false };
      }
      const refusal = unauthenticated.refusal(address);
      if (refusal !== null && !(refusal === 'pool-full' && evictFor(address))) {
        return refusal === 'address-full'
          ? {
              status: 429,
              message: 'too many WebSockets without CONNECT from this address',
              retryAfter: true,
            }
          : {
              status: 503,
              message: 'too many WebSockets without CONNECT, retry later',
              retryAfter: true,
            };
      }
      // Cross-site WebSocket hijacking: a page elsewhere must not open a session with the
      // browser's access to this host. Non-browser clients send no Origin.
      if (origin !== '' && !originAllowed(origin, host)) {
        return { status: 403, message: 'origin not allowed', retryAfter: false };
      }
      return null;
    },
    open(transport, address, maxVersion) {
      // Taken here, not at admission, so that a place is held exactly while a session exists
      // (closed releases it); another session may have taken the last one in between.
      if (!unauthenticated.tryTake(address)) {
        transport.end(CLOSE_TRY_AGAIN_LATER, 'too many sockets without CONNECT');
        return null;
      }
      nextSessionId += 1;
      const session = new StompSession(nextSessionId, sessionConfig, maxVersion, clock());
      const link = new Link(transport, session, { address, holds: 'unauthenticated' });
      pending.add(link);
      sessions.add(link);
      startTimer();
      return link;
    },
    receive(link, data) {
      guard('message', link, () => {
        if (!sessions.has(link)) return;
        const now = clock();
        const actions = link.session.receive(data, now);
        if (link.session.state === 'connected' && link.seat.holds === 'unauthenticated') {
          if (!promote(link)) {
            refuseConnected(link);
            return;
          }
        }
        perform(link, actions, now);
      });
    },
    closed(link) {
      guard('close', null, () => {
        if (sessions.delete(link)) release(link);
        broadcaster.removeSocket(link);
        link.session.markClosed();
        if (sessions.size === 0) stopTimer();
      });
    },
    publish(destination, bodyJson) {
      try {
        broadcaster.publish(destination, bodyJson, clock());
      } catch (err) {
        log.warn({ where: 'publish', destination, err: describe(err) }, 'stomp: publish failed');
      }
    },
    tailing: () => broadcaster.tailing(),
    publishEvents(events) {
      try {
        broadcaster.publishEvents(events, clock());
      } catch (err) {
        log.warn({ where: 'publishEvents', err: describe(err) }, 'stomp: publish failed');
      }
    },
    sessionCount() {
      return sessions.size;
    },
    closeAll(code = CLOSE_GOING_AWAY) {
      accepting = false;
      for (const link of sessions) {
        guard('closeAll', link, () => link.transport.end(code, 'server shutting down'));
      }
      stopTimer();
    },
    recheckKeys(holds) {
      const now = clock();
      for (const link of sessions) {
        guard('recheckKeys', link, () => {
          const { session } = link;
          if (session.principal === null || holds(session.principal)) return;
          perform(link, session.revoke(now, 'the API key was revoked or expired'), now);
        });
      }
    },
    stats() {
      return {
        sessions: sessions.size,
        subscriptions: broadcaster.subscriptionCount(),
        ...broadcaster.stats,
      };
    },
  };
}
