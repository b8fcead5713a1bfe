/**
 * @module The STOMP endpoint's options (every bound a transport shares) and their checked defaults.
 */
import type { Principal } from '../auth/principal.ts';
import type { EventRecord } from '../domain/event.ts';
import type { ConnectionLimit } from '../http/connection-limit.ts';
import type { BroadcastStats } from './broadcaster.ts';
import type { Destination, SessionConfig } from './session.ts';
import type { UnauthenticatedPool } from './unauthenticated-pool.ts';

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
  /**
   * Raw STOMP over WebSocket (no SockJS framing). Default ['/ws', '/ws/websocket']: the second is
   * where Spring serves raw WebSocket beside SockJS, and the SockJS protocol's own raw path.
   */
  readonly paths?: readonly string[];
  /** The SockJS protocol under this base path (src/stomp/sockjs/); null: none. Default '/ws'. */
  readonly sockJsBase?: string | null;
  /** SockJS: an `h` frame after this long without other output. Default 25 000 ms. */
  readonly sockJsHeartbeatMs?: number;
  /** SockJS xhr transports: a session with no request to answer for this long ends. Default 5 000 ms. */
  readonly sockJsDisconnectMs?: number;
  /** SockJS xhr-streaming: one response carries about this many bytes, then the client re-opens it. */
  readonly sockJsResponseLimitBytes?: number;
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

const KiB = 1024;
export interface Resolved {
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
  readonly sockJsBase: string | null;
  readonly sockJsHeartbeatMs: number;
  readonly sockJsDisconnectMs: number;
  readonly sockJsResponseLimitBytes: number;
}

export function resolve(options: StompEndpointOptions): Resolved {
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
    sockJsBase: options.sockJsBase === undefined ? '/ws' : options.sockJsBase,
    sockJsHeartbeatMs: options.sockJsHeartbeatMs ?? 25_000,
    sockJsDisconnectMs: options.sockJsDisconnectMs ?? 5_000,
    sockJsResponseLimitBytes: options.sockJsResponseLimitBytes ?? 128 * KiB,
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
    'sockJsHeartbeatMs',
    'sockJsDisconnectMs',
    'sockJsResponseLimitBytes',
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
  if (resolved.sockJsBase !== null && !/^\/[^?#]*[^/?#]$/.test(resolved.sockJsBase)) {
    throw new TypeError('attachStomp: option sockJsBase must start with / and not end with /');
  }
  return resolved;
}

/** The shared timer ticks often enough for the shortest interval it serves, at most once a second. */
export function tickInterval(r: Resolved): number {
  const intervals = [r.heartbeatSendMs, r.heartbeatExpectMs, r.connectTimeoutMs].filter(
    (ms) => ms > 0,
  );
  return Math.min(1000, Math.max(10, Math.floor(Math.min(...intervals) / 4)));
}
