// Wires STOMP onto a uWS app: upgrade (subprotocol), per-socket StompSession, one shared timer
// for heart-beats and deadlines, and the broadcaster. Runs on the front thread; no callback throws.
import type { EventRecord } from '../domain/event.ts';
import type { HttpResponse, TemplatedApp, WebSocket, WebSocketBehavior } from 'uWebSockets.js';
import type { Principal } from '../auth/principal.ts';
import { UNLIMITED_CONNECTIONS, type ConnectionLimit } from '../http/connection-limit.ts';
import { Broadcaster, DEFAULT_TAIL_EVENTS_PER_SECOND } from './broadcaster.ts';
import { encodeFrame } from './frame.ts';
import type { BroadcastStats } from './broadcaster.ts';
import { CLOSE_GOING_AWAY, StompSession, negotiateSubprotocol } from './session.ts';
import type { Destination, SessionAction, SessionConfig } from './session.ts';
import {
  UNLIMITED_POOL,
  type PoolRefusal,
  type UnauthenticatedPool,
} from './unauthenticated-pool.ts';

/** Minimal logger; a pino logger fits as is (`log.info({ ... }, 'message')`). */
export interface StompLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface StompEndpointOptions {
  /** Package version, sent as `server:vigil/<serverVersion>` in CONNECTED. */
  readonly serverVersion: string;
  readonly log: StompLogger;
  /** The latest metrics snapshot JSON, sent at once to a new /topic/metrics subscriber. */
  readonly currentMetricsJson: () => string | null;
  /** Default ['/ws', '/ws/websocket'] (the second is the path SockJS clients use). */
  readonly paths?: readonly string[];
  /** Largest STOMP frame a client may send; larger: ERROR then close. Default 64 KiB. */
  readonly maxFrameBytes?: number;
  /** Largest WebSocket message (uWS maxPayloadLength; larger: closed by uWS). Default 4 x maxFrameBytes. */
  readonly maxMessageBytes?: number;
  /** Broadcasts skip a socket with more than this buffered. Default 256 KiB. */
  readonly softBufferBytes?: number;
  /**
   * A socket with more than this buffered beyond the last MESSAGE sent to it is closed (a snapshot
   * larger than this still reaches a reader that keeps up). Default 2 MiB.
   */
  readonly hardBufferBytes?: number;
  /** A socket skipped continuously for this long is closed. Default 30 000 ms. */
  readonly slowClientTimeoutMs?: number;
  /** sx of CONNECTED heart-beat: the server sends at least this often. Default 10 000 ms; 0 = never. */
  readonly heartbeatSendMs?: number;
  /** sy of CONNECTED heart-beat: the server wants data this often. Default 10 000 ms; 0 = never. */
  readonly heartbeatExpectMs?: number;
  /** A client silent for factor x its negotiated interval is closed. Default 2. */
  readonly heartbeatGraceFactor?: number;
  /** A socket without CONNECT after this long is closed. Default 10 000 ms. */
  readonly connectTimeoutMs?: number;
  /** /topic/events: events per second per subscription, beyond which they are dropped. Default 200. */
  readonly tailEventsPerSecond?: number;
  /** Subscriptions per connection. Default 16. */
  readonly maxSubscriptions?: number;
  /** uWS idleTimeout in seconds (pings are sent automatically before it). Default 120; 0 = off. */
  readonly idleTimeoutSeconds?: number;
  /** The clock (ms) deadlines and stalls are measured with. Default Date.now; tests move their own. */
  readonly now?: () => number;
  /**
   * MAX_CONNECTIONS, shared with the HTTP adapter: a session holds a place from its accepted
   * CONNECT until its socket closes. Default: none.
   */
  readonly connections?: ConnectionLimit;
  /** The places of sockets before their CONNECT is accepted, in all and per address. Default: none. */
  readonly unauthenticated?: UnauthenticatedPool;
  /** Checks the key of each CONNECT (needs `read`); absent: authentication off. */
  readonly authenticate?: SessionConfig['authenticate'];
  /**
   * Whether a browser page from `origin` may open the socket (`host`: the request's Host header);
   * absent: any. An upgrade without an Origin header (not a browser) is not asked about.
   */
  readonly originAllowed?: (origin: string, host: string) => boolean;
}

export interface StompStats extends BroadcastStats {
  readonly sessions: number;
  readonly subscriptions: number;
}

export interface StompEndpoint {
  /** Sends `bodyJson` as one MESSAGE to every subscription of `destination`. Never throws. */
  publish(destination: Destination, bodyJson: string): void;
  /** Whether any subscription tails /topic/events: when none does, nothing need be published. */
  tailing(): boolean;
  /** Stored events (after COMMIT) to the /topic/events subscriptions they match. Never throws. */
  publishEvents(events: readonly EventRecord[]): void;
  sessionCount(): number;
  /** For shutdown: ends every session (default code 1001) and answers later upgrades with 503. */
  closeAll(code?: number): void;
  /** Ends, with an ERROR frame, every session whose key no longer `holds` (revoked, expired). */
  recheckKeys(holds: (principal: Principal) => boolean): void;
  stats(): StompStats;
}

/**
 * Per-socket user data. Our uWS fork copies the own properties of the object given to
 * res.upgrade() onto the socket (getUserData() returns the socket, prototype lost), so the
 * session instance is held by reference in a field rather than being the user data itself.
 */
export interface SocketData {
  readonly session: StompSession;
  readonly seat: Seat;
}

/** Which count a socket holds a place in; mutable, held by reference (see SocketData). */
interface Seat {
  readonly address: string;
  holds: 'unauthenticated' | 'connection' | 'none';
}

type Socket = WebSocket<SocketData>;

const KiB = 1024;
/** WebSocket close code 1013, Try Again Later (RFC 6455 registry): MAX_CONNECTIONS reached. */
const CLOSE_TRY_AGAIN_LATER = 1013;

interface Resolved {
  readonly paths: readonly string[];
  readonly maxFrameBytes: number;
  readonly maxMessageBytes: number;
  readonly softBufferBytes: number;
  readonly hardBufferBytes: number;
  readonly slowClientTimeoutMs: number;
  readonly heartbeatSendMs: number;
  readonly heartbeatExpectMs: number;
  readonly heartbeatGraceFactor: number;
  readonly connectTimeoutMs: number;
  readonly maxSubscriptions: number;
  readonly idleTimeoutSeconds: number;
}

function resolve(options: StompEndpointOptions): Resolved {
  const maxFrameBytes = options.maxFrameBytes ?? 64 * KiB;
  const resolved: Resolved = {
    paths: options.paths ?? ['/ws', '/ws/websocket'],
    maxFrameBytes,
    maxMessageBytes: options.maxMessageBytes ?? 4 * maxFrameBytes,
    softBufferBytes: options.softBufferBytes ?? 256 * KiB,
    hardBufferBytes: options.hardBufferBytes ?? 2048 * KiB,
    slowClientTimeoutMs: options.slowClientTimeoutMs ?? 30_000,
    heartbeatSendMs: options.heartbeatSendMs ?? 10_000,
    heartbeatExpectMs: options.heartbeatExpectMs ?? 10_000,
    heartbeatGraceFactor: options.heartbeatGraceFactor ?? 2,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    maxSubscriptions: options.maxSubscriptions ?? 16,
    idleTimeoutSeconds: options.idleTimeoutSeconds ?? 120,
  };
  const positive = [
    'maxFrameBytes',
    'maxMessageBytes',
    'softBufferBytes',
    'hardBufferBytes',
    'slowClientTimeoutMs',
    'heartbeatGraceFactor',
    'connectTimeoutMs',
    'maxSubscriptions',
  ] as const;
  for (const name of positive) {
    const value = resolved[name];
    if (!Number.isFinite(value) || value <= 0) {
      throw new TypeError(`attachStomp: option ${name} must be a positive number, got ${value}`);
    }
  }
  for (const name of ['heartbeatSendMs', 'heartbeatExpectMs', 'idleTimeoutSeconds'] as const) {
    const value = resolved[name];
    if (!Number.isInteger(value) || value < 0) {
      throw new TypeError(`attachStomp: option ${name} must be an integer >= 0, got ${value}`);
    }
  }
  if (resolved.idleTimeoutSeconds !== 0 && resolved.idleTimeoutSeconds < 8) {
    // uWS refuses (and aborts on) idle timeouts between 1 and 7 seconds.
    throw new TypeError('attachStomp: option idleTimeoutSeconds must be 0 or >= 8');
  }
  if (resolved.softBufferBytes >= resolved.hardBufferBytes) {
    throw new TypeError('attachStomp: option softBufferBytes must be below hardBufferBytes');
  }
  if (resolved.maxMessageBytes < resolved.maxFrameBytes) {
    throw new TypeError('attachStomp: option maxMessageBytes must be >= maxFrameBytes');
  }
  if (resolved.paths.length === 0) throw new TypeError('attachStomp: option paths is empty');
  return resolved;
}

/** The shared timer ticks often enough for the shortest interval it serves, at most once a second. */
function tickInterval(r: Resolved): number {
  const intervals = [r.heartbeatSendMs, r.heartbeatExpectMs, r.connectTimeoutMs].filter(
    (ms) => ms > 0,
  );
  return Math.min(1000, Math.max(10, Math.floor(Math.min(...intervals) / 4)));
}

/** The answer to an upgrade the unauthenticated pool has no place for. */
function refuseUnauthenticated(res: HttpResponse, refusal: PoolRefusal): void {
  const [status, body] =
    refusal === 'address-full'
      ? ['429 Too Many Requests', 'too many WebSockets without CONNECT from this address']
      : ['503 Service Unavailable', 'too many WebSockets without CONNECT, retry later'];
  res.writeStatus(status).writeHeader('Retry-After', '1').end(body, true);
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

export function attachStomp(app: TemplatedApp, options: StompEndpointOptions): StompEndpoint {
  const config = resolve(options);
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
  const sessions = new Set<Socket>();
  /** The sockets holding an unauthenticated-pool place, oldest first (eviction scans these only). */
  const pending = new Set<Socket>();
  let nextSessionId = 0;
  let accepting = true;
  let timer: NodeJS.Timeout | null = null;
  let lastTickAt = 0;

  const broadcaster = new Broadcaster<Socket>({
    softBufferBytes: config.softBufferBytes,
    hardBufferBytes: config.hardBufferBytes,
    tailEventsPerSecond: options.tailEventsPerSecond ?? DEFAULT_TAIL_EVENTS_PER_SECOND,
    slowClientTimeoutMs: config.slowClientTimeoutMs,
    closeSlow: (ws, reason) => {
      if (!sessions.has(ws)) return;
      log.info({ session: ws.getUserData().session.id, reason }, 'stomp: closing slow client');
      // Forceful: a graceful close frame would only queue behind the data it cannot drain.
      ws.close();
    },
  });

  /** Runs a uWS callback body; a throw is logged and closes that socket, never escapes to uWS. */
  function guard(where: string, ws: Socket | null, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      log.warn({ where, err: describe(err) }, 'stomp: handler failed');
      if (ws !== null && sessions.has(ws)) {
        try {
          ws.close();
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

  function perform(ws: Socket, session: StompSession, actions: SessionAction[], now: number): void {
    for (const action of actions) {
      // A send over the hard limit, or a slow-client close, may have ended the socket midway.
      if (!sessions.has(ws)) return;
      switch (action.type) {
        case 'send':
          ws.send(action.data, false);
          if (broadcaster.closeIfOverHardLimit(ws)) return;
          break;
        case 'subscribe': {
          broadcaster.add(
            ws,
            session,
            action.id,
            action.destination,
            action.ackHeader,
            action.filter,
            now,
          );
          if (action.destination === '/topic/metrics') {
            const snapshot = currentSnapshot();
            if (snapshot !== null) broadcaster.sendTo(ws, action.id, snapshot, now);
          }
          break;
        }
        case 'unsubscribe':
          broadcaster.remove(ws, action.id);
          break;
        case 'close':
          if (action.reason !== 'DISCONNECT') {
            log.info({ session: session.id, reason: action.reason }, 'stomp: closing session');
          }
          ws.end(action.code, action.reason.slice(0, 120));
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
    for (const ws of sessions) {
      guard('tick', ws, () => {
        const { session } = ws.getUserData();
        const actions = session.tick(now, onTime);
        if (actions.length > 0) perform(ws, session, actions, now);
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

  /** An accepted CONNECT moves the socket from the unauthenticated pool to MAX_CONNECTIONS. */
  function promote(ws: Socket, seat: Seat): boolean {
    pending.delete(ws);
    unauthenticated.release(seat.address);
    if (!connections.tryTake()) {
      seat.holds = 'none';
      return false;
    }
    seat.holds = 'connection';
    return true;
  }

  function release(ws: Socket, seat: Seat): void {
    pending.delete(ws);
    if (seat.holds === 'unauthenticated') unauthenticated.release(seat.address);
    else if (seat.holds === 'connection') connections.release();
    seat.holds = 'none';
  }

  /**
   * The pool is full: closes the oldest silent socket of the address holding the most places, if
   * it holds more than `address` does, and gives its place back at once. False: none qualifies.
   */
  function evictFor(address: string): boolean {
    let victim: Socket | null = null;
    let most = unauthenticated.held(address) + 1;
    // A Set iterates in insertion order: the first socket found of an address is its oldest.
    for (const ws of pending) {
      const { seat } = ws.getUserData();
      const held = unauthenticated.held(seat.address);
      if (held > most) {
        victim = ws;
        most = held;
      }
    }
    if (victim === null) return false;
    const { session, seat } = victim.getUserData();
    release(victim, seat);
    log.info({ session: session.id }, 'stomp: closing a socket without CONNECT to make room');
    victim.end(CLOSE_TRY_AGAIN_LATER, 'too many sockets without CONNECT from this address');
    return true;
  }

  /** MAX_CONNECTIONS was reached while the CONNECT was read: ERROR instead of CONNECTED. */
  function refuseConnected(ws: Socket, session: StompSession): void {
    const message = 'too many connections, retry later';
    log.info({ session: session.id }, 'stomp: refusing CONNECT, MAX_CONNECTIONS reached');
    ws.send(encodeFrame({ command: 'ERROR', headers: [['message', message]] }), false);
    ws.end(CLOSE_TRY_AGAIN_LATER, message);
  }

  const behavior: WebSocketBehavior<SocketData> = {
    maxPayloadLength: config.maxMessageBytes,
    // Off (0): uWS would drop, and close on, any send (a heart-beat, a ping) while more than a
    // fixed amount is buffered, so a healthy reader of a snapshot larger than that would be cut
    // off. The broadcaster bounds each buffer instead (hardBufferBytes beyond the last frame).
    maxBackpressure: 0,
    idleTimeout: config.idleTimeoutSeconds,
    sendPingsAutomatically: true,

    upgrade: (res, req, context) => {
      try {
        if (!accepting) {
          res.writeStatus('503 Service Unavailable').end('shutting down', true);
          return;
        }
        if (connections.full()) {
          res.writeStatus('503 Service Unavailable').end('too many connections', true);
          return;
        }
        const address = Buffer.from(res.getRemoteAddressAsText()).toString('latin1');
        const refusal = unauthenticated.refusal(address);
        if (refusal !== null && !(refusal === 'pool-full' && evictFor(address))) {
          refuseUnauthenticated(res, refusal);
          return;
        }
        // Cross-site WebSocket hijacking: a page elsewhere must not open a socket with the
        // browser's access to this host. Non-browser clients send no Origin.
        const origin = req.getHeader('origin');
        if (
          origin !== '' &&
          options.originAllowed !== undefined &&
          !options.originAllowed(origin, req.getHeader('host'))
        ) {
          res.writeStatus('403 Forbidden').end('origin not allowed', true);
          return;
        }
        // req is only valid during this call: read everything before upgrading.
        const key = req.getHeader('sec-websocket-key');
        const offer = req.getHeader('sec-websocket-protocol');
        const extensions = req.getHeader('sec-websocket-extensions');
        const choice = negotiateSubprotocol(offer);
        nextSessionId += 1;
        const session = new StompSession(nextSessionId, sessionConfig, choice.maxVersion, clock());
        const seat: Seat = { address, holds: 'none' };
        res.upgrade<SocketData>({ session, seat }, key, choice.protocol, extensions, context);
      } catch (err) {
        log.warn({ where: 'upgrade', err: describe(err) }, 'stomp: handler failed');
        try {
          res.close();
        } catch {
          // The request was aborted already.
        }
      }
    },

    open: (ws) => {
      guard('open', ws, () => {
        // Taken here, not at the upgrade, so that a place is held exactly while a socket exists
        // (close releases it); another socket may have taken the last one in between.
        const { seat } = ws.getUserData();
        if (!unauthenticated.tryTake(seat.address)) {
          ws.end(CLOSE_TRY_AGAIN_LATER, 'too many sockets without CONNECT');
          return;
        }
        seat.holds = 'unauthenticated';
        pending.add(ws);
        sessions.add(ws);
        startTimer();
      });
    },

    message: (ws, message) => {
      guard('message', ws, () => {
        const { session, seat } = ws.getUserData();
        const now = clock();
        // The decoder copies what it keeps: uWS neuters `message` when this callback returns.
        const actions = session.receive(new Uint8Array(message), now);
        if (session.state === 'connected' && seat.holds === 'unauthenticated') {
          if (!promote(ws, seat)) {
            refuseConnected(ws, session);
            return;
          }
        }
        perform(ws, session, actions, now);
      });
    },

    close: (ws) => {
      guard('close', null, () => {
        if (sessions.delete(ws)) release(ws, ws.getUserData().seat);
        broadcaster.removeSocket(ws);
        ws.getUserData().session.markClosed();
        if (sessions.size === 0) stopTimer();
      });
    },
  };

  for (const path of config.paths) app.ws<SocketData>(path, behavior);

  return {
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
      for (const ws of sessions) {
        guard('closeAll', ws, () => ws.end(code, 'server shutting down'));
      }
      stopTimer();
    },
    recheckKeys(holds) {
      const now = clock();
      for (const ws of sessions) {
        guard('recheckKeys', ws, () => {
          const { session } = ws.getUserData();
          if (session.principal === null || holds(session.principal)) return;
          perform(ws, session, session.revoke(now, 'the API key was revoked or expired'), now);
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
