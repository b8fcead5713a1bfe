// Per-connection STOMP state machine (pure, no uWS): bytes and clock ticks in, actions out.
// Runs on the front thread; each uWS WebSocket holds its StompSession in its typed user data.
import type { Principal } from '../auth/principal.ts';
import { FrameDecoder, HEARTBEAT, encodeFrame } from './frame.ts';
import type { OutgoingFrame, StompFrame } from './frame.ts';
import { NO_FILTER, type EventFilter } from '../domain/event-search/filter.ts';
import { isEventFilter, parseEventFilter } from '../schemas/event-filter.ts';

export const DESTINATIONS = ['/topic/metrics', '/topic/alerts', '/topic/events'] as const;
/** The live tail (issue 34): each stored event that passes the subscription's `filter` header. */
export const EVENTS_DESTINATION = '/topic/events';
export type Destination = (typeof DESTINATIONS)[number];
/** Application destinations (Spring's `/app` prefix): a SEND there is not an ERROR. */
const APP_PREFIX = '/app/';
const APP_SUBSCRIBE = '/app/subscribe';

export type StompVersion = '1.0' | '1.1' | '1.2';
const VERSIONS_DESCENDING: readonly StompVersion[] = ['1.2', '1.1', '1.0'];

/** WebSocket subprotocols we speak, best first, with the highest STOMP version each allows. */
const SUBPROTOCOLS: ReadonlyArray<readonly [string, StompVersion]> = [
  ['v12.stomp', '1.2'],
  ['v11.stomp', '1.1'],
  ['v10.stomp', '1.0'],
];

export interface SubprotocolChoice {
  /** The value for Sec-WebSocket-Protocol, or '' to send none. */
  readonly protocol: string;
  readonly maxVersion: StompVersion;
}

/** Picks our best subprotocol from the client's offer; a client offering none of ours gets 1.2. */
export function negotiateSubprotocol(offerHeader: string): SubprotocolChoice {
  const offered = new Set(offerHeader.split(',').map((p) => p.trim().toLowerCase()));
  for (const [protocol, maxVersion] of SUBPROTOCOLS) {
    if (offered.has(protocol)) return { protocol, maxVersion };
  }
  return { protocol: '', maxVersion: '1.2' };
}

export const CLOSE_NORMAL = 1000;
export const CLOSE_GOING_AWAY = 1001;
export const CLOSE_PROTOCOL_ERROR = 1002;
export const CLOSE_POLICY = 1008;
export const CLOSE_TOO_BIG = 1009;

const STRICT = { strict: true } as const;

/** SUBSCRIBE `ack` modes. Every MESSAGE counts as settled when sent, so ACK / NACK change nothing. */
const ACK_MODES: readonly string[] = ['auto', 'client', 'client-individual'];

export type SessionAction =
  | { readonly type: 'send'; readonly data: Uint8Array }
  | {
      readonly type: 'subscribe';
      readonly id: string;
      readonly destination: Destination;
      /** STOMP 1.2 `client` / `client-individual` mode: each MESSAGE must carry an `ack` header. */
      readonly ackHeader: boolean;
      /** /topic/events: the events it gets (the `filter` header); null on other destinations. */
      readonly filter: EventFilter | null;
    }
  | { readonly type: 'unsubscribe'; readonly id: string; readonly destination: Destination }
  /** SEND to /app/subscribe: the current metrics to this session's /topic/metrics subscriptions. */
  | { readonly type: 'snapshot' }
  | { readonly type: 'close'; readonly code: number; readonly reason: string };

export interface SessionConfig {
  /** The CONNECTED `server` header, e.g. `vigil/0.1.0`. */
  readonly server: string;
  readonly maxFrameBytes: number;
  /** sx: the server sends something at least this often (ms), 0 = never. */
  readonly heartbeatSendMs: number;
  /** sy: the server wants something from the client at least this often (ms), 0 = never. */
  readonly heartbeatExpectMs: number;
  /** A client silent for more than factor x the negotiated interval is closed. */
  readonly heartbeatGraceFactor: number;
  /** Heart-beats may leave this much early, so a coarse shared timer never makes them late. */
  readonly heartbeatSlackMs: number;
  readonly connectTimeoutMs: number;
  readonly maxSubscriptions: number;
  readonly maxSubscriptionIdLength: number;
  /**
   * Checks the key a CONNECT carries (`passcode`, or an `Authorization: Bearer` header); absent:
   * every CONNECT is accepted (authentication off).
   */
  readonly authenticate?: (presented: string | undefined, now: number) => StompAuthentication;
}

export type StompAuthentication =
  | { readonly ok: true; readonly principal: Principal }
  | { readonly ok: false; readonly reason: string };

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The key a CONNECT frame presents: its passcode, else its Authorization header's bearer token. */
function presentedKey(frame: StompFrame): string | undefined {
  const passcode = frame.headers.get('passcode');
  if (passcode !== undefined && passcode !== '') return passcode;
  const authorization = frame.headers.get('authorization') ?? frame.headers.get('Authorization');
  return authorization === undefined ? undefined : (BEARER.exec(authorization)?.[1] ?? '');
}

export type SessionState = 'awaiting-connect' | 'connected' | 'closed';

interface Negotiated {
  readonly sendEveryMs: number;
  readonly expectEveryMs: number;
}

export class StompSession {
  state: SessionState = 'awaiting-connect';
  /** The negotiated version; until CONNECT, the best one the subprotocol allows. */
  version: StompVersion;
  heartbeat: Negotiated = { sendEveryMs: 0, expectEveryMs: 0 };
  readonly subscriptions = new Map<string, Destination>();
  /** Whose key the CONNECT carried; null until then, and when authentication is off. */
  principal: Principal | null = null;
  lastReceivedAt: number;
  lastSentAt: number;
  private readonly decoder: FrameDecoder;
  private messageSeq = 0;

  constructor(
    readonly id: number,
    private readonly config: SessionConfig,
    readonly maxVersion: StompVersion,
    readonly openedAt: number,
  ) {
    this.version = maxVersion;
    this.lastReceivedAt = openedAt;
    this.lastSentAt = openedAt;
    this.decoder = new FrameDecoder(config.maxFrameBytes);
  }

  /** Header values are escaped on the wire from STOMP 1.1 on. */
  get escapesHeaders(): boolean {
    return this.version !== '1.0';
  }

  /** Unique within the process: session id plus a per-session counter. */
  nextMessageId(): string {
    this.messageSeq += 1;
    return `${this.id}-${this.messageSeq}`;
  }

  isClosed(): boolean {
    return this.state === 'closed';
  }

  noteSent(now: number): void {
    this.lastSentAt = now;
  }

  /** The socket is gone (closed by either side): nothing more is produced. */
  markClosed(): void {
    this.state = 'closed';
    this.subscriptions.clear();
  }

  /** The session's key no longer holds (revoked, expired): ERROR, then close. */
  revoke(now: number, reason: string): SessionAction[] {
    if (this.state === 'closed') return [];
    const actions: SessionAction[] = [];
    this.error(actions, now, 'authentication revoked', reason, null, CLOSE_POLICY);
    return actions;
  }

  /** One WebSocket message from the client. */
  receive(data: Uint8Array, now: number): SessionAction[] {
    if (this.state === 'closed') return [];
    this.lastReceivedAt = now;
    const { frames, error } = this.decoder.push(data);
    const actions: SessionAction[] = [];
    for (const frame of frames) {
      this.handle(frame, actions, now);
      if (this.isClosed()) return actions;
    }
    if (error !== null) {
      const code = error.code === 'frame-too-large' ? CLOSE_TOO_BIG : CLOSE_PROTOCOL_ERROR;
      this.error(actions, now, error.message, `${error.code}: ${error.message}`, null, code);
    }
    return actions;
  }

  /**
   * Called by the shared timer: heart-beats out, and deadlines for CONNECT and client heart-beats.
   * `enforceDeadlines` is false on a late tick: after an event-loop stall the client's data may
   * still wait unread in the kernel, so silence is not yet the client's fault.
   */
  tick(now: number, enforceDeadlines = true): SessionAction[] {
    const actions: SessionAction[] = [];
    if (this.state === 'awaiting-connect') {
      if (enforceDeadlines && now - this.openedAt >= this.config.connectTimeoutMs) {
        this.error(
          actions,
          now,
          'no CONNECT frame',
          'CONNECT not received in time',
          null,
          CLOSE_POLICY,
        );
      }
      return actions;
    }
    if (this.state !== 'connected') return actions;
    const { sendEveryMs, expectEveryMs } = this.heartbeat;
    if (
      enforceDeadlines &&
      expectEveryMs > 0 &&
      now - this.lastReceivedAt > expectEveryMs * this.config.heartbeatGraceFactor
    ) {
      this.error(
        actions,
        now,
        'heart-beat timeout',
        'no data from client in time',
        null,
        CLOSE_POLICY,
      );
      return actions;
    }
    if (sendEveryMs > 0 && now - this.lastSentAt >= sendEveryMs - this.config.heartbeatSlackMs) {
      this.send(actions, now, HEARTBEAT);
    }
    return actions;
  }

  private handle(frame: StompFrame, actions: SessionAction[], now: number): void {
    if (this.state === 'awaiting-connect') {
      if (frame.command === 'CONNECT' || frame.command === 'STOMP') {
        this.connect(frame, actions, now);
      } else {
        this.error(actions, now, 'expected CONNECT', `${frame.command} before CONNECT`, frame);
      }
      return;
    }
    switch (frame.command) {
      case 'SUBSCRIBE':
        this.subscribe(frame, actions, now);
        return;
      case 'UNSUBSCRIBE':
        this.unsubscribe(frame, actions, now);
        return;
      case 'DISCONNECT':
        this.receipt(frame, actions, now);
        this.state = 'closed';
        actions.push({ type: 'close', code: CLOSE_NORMAL, reason: 'DISCONNECT' });
        return;
      case 'ACK':
      case 'NACK':
        // Every MESSAGE is settled when sent (read-only topics), so acknowledgements change nothing.
        this.receipt(frame, actions, now);
        return;
      case 'SEND':
        this.handleSend(frame, actions, now);
        return;
      case 'BEGIN':
      case 'COMMIT':
      case 'ABORT':
        this.error(actions, now, 'transactions not supported', 'read-only endpoint', frame);
        return;
      case 'CONNECT':
      case 'STOMP':
        this.error(actions, now, 'already connected', 'a second CONNECT frame', frame);
        return;
      default:
        this.error(actions, now, 'unknown command', `unknown command ${frame.command}`, frame);
    }
  }

  private connect(frame: StompFrame, actions: SessionAction[], now: number): void {
    const accept = frame.headers.get('accept-version');
    const version = negotiateVersion(accept, this.maxVersion);
    if (version === null) {
      this.error(
        actions,
        now,
        'unsupported protocol version',
        `supported versions: ${VERSIONS_DESCENDING.filter((v) => v <= this.maxVersion).join(',')}`,
        frame,
        CLOSE_PROTOCOL_ERROR,
        [['version', VERSIONS_DESCENDING.filter((v) => v <= this.maxVersion).join(',')]],
      );
      return;
    }
    this.version = version;
    this.decoder.unescapeHeaders = version !== '1.0';
    if (this.config.authenticate !== undefined) {
      const auth = this.config.authenticate(presentedKey(frame), now);
      if (!auth.ok) {
        this.error(actions, now, 'authentication failed', auth.reason, frame, CLOSE_POLICY);
        return;
      }
      this.principal = auth.principal;
    }
    const headers: Array<[string, string]> = [
      ['version', version],
      ['server', this.config.server],
      ['session', `session-${this.id}`],
    ];
    if (version !== '1.0') {
      const client = parseHeartbeat(frame.headers.get('heart-beat'));
      if (client === null) {
        this.error(
          actions,
          now,
          'malformed heart-beat header',
          'expected heart-beat:<cx>,<cy>',
          frame,
        );
        return;
      }
      const sx = this.config.heartbeatSendMs;
      const sy = this.config.heartbeatExpectMs;
      this.heartbeat = {
        sendEveryMs: sx === 0 || client.cy === 0 ? 0 : Math.max(sx, client.cy),
        expectEveryMs: client.cx === 0 || sy === 0 ? 0 : Math.max(client.cx, sy),
      };
      headers.push(['heart-beat', `${sx},${sy}`]);
    }
    this.state = 'connected';
    this.lastReceivedAt = now;
    this.send(actions, now, encodeFrame({ command: 'CONNECTED', headers }, { escape: false }));
  }

  private subscribe(frame: StompFrame, actions: SessionAction[], now: number): void {
    const destination = frame.headers.get('destination');
    if (destination === undefined) {
      this.error(actions, now, 'missing destination header', 'SUBSCRIBE needs destination', frame);
      return;
    }
    // STOMP 1.0 made id optional; the destination then names the subscription.
    const id = frame.headers.get('id') ?? (this.version === '1.0' ? destination : undefined);
    if (id === undefined) {
      this.error(actions, now, 'missing id header', 'SUBSCRIBE needs id', frame);
      return;
    }
    if (!isDestination(destination)) {
      this.error(
        actions,
        now,
        'unknown destination',
        `unknown destination ${destination}; available: ${DESTINATIONS.join(', ')}`,
        frame,
      );
      return;
    }
    if (id.length === 0 || id.length > this.config.maxSubscriptionIdLength) {
      this.error(actions, now, 'invalid subscription id', 'id is empty or too long', frame);
      return;
    }
    if (this.subscriptions.has(id)) {
      this.error(actions, now, 'duplicate subscription id', `id ${id} is already in use`, frame);
      return;
    }
    const ack = frame.headers.get('ack') ?? 'auto';
    if (!ACK_MODES.includes(ack)) {
      this.error(
        actions,
        now,
        'invalid ack mode',
        `ack must be one of ${ACK_MODES.join(', ')}, got '${ack}'`,
        frame,
      );
      return;
    }
    if (this.subscriptions.size >= this.config.maxSubscriptions) {
      this.error(
        actions,
        now,
        'too many subscriptions',
        `at most ${this.config.maxSubscriptions} per connection`,
        frame,
      );
      return;
    }
    let filter: EventFilter | null = null;
    if (destination === EVENTS_DESTINATION) {
      // The query-string syntax of GET /api/v1/events; anything but a filter is refused.
      const text = frame.headers.get('filter');
      const parsed =
        text === undefined ? NO_FILTER : parseEventFilter(new URLSearchParams(text), STRICT);
      if (!isEventFilter(parsed)) {
        const why = Object.entries(parsed).map(([name, reason]) => `${name}: ${reason}`);
        const names = Object.keys(parsed).join(', ');
        this.error(actions, now, `invalid filter: ${names}`, `filter: ${why.join('; ')}`, frame);
        return;
      }
      filter = parsed;
    }
    this.subscriptions.set(id, destination);
    actions.push({
      type: 'subscribe',
      id,
      destination,
      ackHeader: ack !== 'auto' && this.version === '1.2',
      filter,
    });
    this.receipt(frame, actions, now);
  }

  private unsubscribe(frame: StompFrame, actions: SessionAction[], now: number): void {
    const id =
      frame.headers.get('id') ??
      (this.version === '1.0' ? frame.headers.get('destination') : undefined);
    if (id === undefined) {
      this.error(actions, now, 'missing id header', 'UNSUBSCRIBE needs id', frame);
      return;
    }
    const destination = this.subscriptions.get(id);
    if (destination !== undefined) {
      this.subscriptions.delete(id);
      actions.push({ type: 'unsubscribe', id, destination });
    }
    this.receipt(frame, actions, now);
  }

  /**
   * As Spring's broker: an application destination (/app/**) without a handler is ignored, and
   * /app/subscribe (what Spring-style dashboards send after SUBSCRIBE) answers with the current
   * metrics; the topics stay read-only.
   */
  private handleSend(frame: StompFrame, actions: SessionAction[], now: number): void {
    const destination = frame.headers.get('destination') ?? '';
    if (!destination.startsWith(APP_PREFIX)) {
      this.error(
        actions,
        now,
        'destination is read-only',
        `SEND is not accepted: ${DESTINATIONS.join(' and ')} are read-only`,
        frame,
      );
      return;
    }
    if (destination === APP_SUBSCRIBE) actions.push({ type: 'snapshot' });
    this.receipt(frame, actions, now);
  }

  private receipt(frame: StompFrame, actions: SessionAction[], now: number): void {
    const receipt = frame.headers.get('receipt');
    if (receipt === undefined) return;
    this.send(
      actions,
      now,
      this.encode({ command: 'RECEIPT', headers: [['receipt-id', receipt]] }),
    );
  }

  /** ERROR frame, then close: every protocol error ends the session (spec 1.2, ERROR). */
  private error(
    actions: SessionAction[],
    now: number,
    message: string,
    detail: string,
    cause: StompFrame | null,
    code: number = CLOSE_PROTOCOL_ERROR,
    extra: ReadonlyArray<readonly [string, string]> = [],
  ): void {
    const headers: Array<readonly [string, string]> = [['message', message], ...extra];
    const receipt = cause?.headers.get('receipt');
    if (receipt !== undefined) headers.push(['receipt-id', receipt]);
    headers.push(['content-type', 'text/plain']);
    this.send(actions, now, this.encode({ command: 'ERROR', headers, body: detail }));
    this.state = 'closed';
    this.subscriptions.clear();
    actions.push({ type: 'close', code, reason: message });
  }

  private encode(frame: OutgoingFrame): Uint8Array {
    return encodeFrame(frame, { escape: this.escapesHeaders });
  }

  private send(actions: SessionAction[], now: number, data: Uint8Array): void {
    this.lastSentAt = now;
    actions.push({ type: 'send', data });
  }
}

export function isDestination(value: string): value is Destination {
  return (DESTINATIONS as readonly string[]).includes(value);
}

/** Highest version both sides accept; no accept-version header means a STOMP 1.0 client. */
export function negotiateVersion(
  acceptHeader: string | undefined,
  maxVersion: StompVersion,
): StompVersion | null {
  if (acceptHeader === undefined) return '1.0';
  const offered = new Set(acceptHeader.split(',').map((v) => v.trim()));
  return VERSIONS_DESCENDING.find((v) => v <= maxVersion && offered.has(v)) ?? null;
}

/** `heart-beat:<cx>,<cy>`; absent means 0,0. Returns null when malformed. */
export function parseHeartbeat(value: string | undefined): { cx: number; cy: number } | null {
  if (value === undefined) return { cx: 0, cy: 0 };
  const match = /^\s*(\d{1,9})\s*,\s*(\d{1,9})\s*$/.exec(value);
  if (match === null) return null;
  return { cx: Number(match[1]), cy: Number(match[2]) };
}
