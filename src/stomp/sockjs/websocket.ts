/**
 * @module SockJS's websocket transport (GET <base>/<server>/<session>/websocket): one STOMP session
 * per socket, `o` first, each STOMP frame in an `a[...]` frame, `h` when nothing else was sent for
 * a while, `c[code,"reason"]` before the socket closes.
 */
import type { WebSocket, WebSocketBehavior } from 'uWebSockets.js';
import type { Link, StompHub } from '../hub.ts';
import type { StompTransport } from '../transport.ts';
import {
  closeFrame,
  HEARTBEAT_FRAME,
  messageFrame,
  OPEN_FRAME,
  parseClientPayload,
} from './framing.ts';

/** Per-socket user data, copied onto the socket by our uWS fork (see endpoint.ts). */
interface SocketData {
  readonly address: string;
  transport: SockJsWebSocket | null;
}

type Socket = WebSocket<SocketData>;

/** sockjs-node's answer to a payload that is not a JSON array of strings. */
const CLOSE_BROKEN_FRAMING = 3000;

export class SockJsWebSocket implements StompTransport {
  link: Link | null = null;
  private lastSentAt: number;

  constructor(
    private readonly ws: Socket,
    now: number,
  ) {
    this.lastSentAt = now;
  }

  send(frame: Uint8Array): number {
    return this.text(messageFrame([Buffer.from(frame).toString('utf8')]), Date.now());
  }

  getBufferedAmount(): number {
    return this.ws.getBufferedAmount();
  }

  end(code: number, reason: string): void {
    this.ws.send(closeFrame(code, reason), false);
    this.ws.end(code, reason);
  }

  close(): void {
    this.ws.close();
  }

  opened(now: number): void {
    this.text(OPEN_FRAME, now);
  }

  heartbeat(now: number, everyMs: number): void {
    if (now - this.lastSentAt >= everyMs) this.text(HEARTBEAT_FRAME, now);
  }

  private text(frame: string, now: number): number {
    this.lastSentAt = now;
    return this.ws.send(frame, false);
  }
}

/** The uWS behavior of the websocket transport; `live` holds the open ones (for heart-beats). */
export function sockJsWebSocketBehavior(
  hub: StompHub,
  live: Set<SockJsWebSocket>,
  started: () => void,
): WebSocketBehavior<SocketData> {
  const { config, log } = hub;
  return {
    maxPayloadLength: config.maxMessageBytes,
    // Off, as for raw STOMP sockets: the broadcaster bounds each buffer (endpoint.ts).
    maxBackpressure: 0,
    idleTimeout: config.idleTimeoutSeconds,
    sendPingsAutomatically: true,

    upgrade: (res, req, context) => {
      try {
        const address = Buffer.from(res.getRemoteAddressAsText()).toString('latin1');
        const refusal = hub.admit(address, req.getHeader('origin'), req.getHeader('host'));
        if (refusal !== null) {
          const status = { 403: 'Forbidden', 429: 'Too Many Requests', 503: 'Service Unavailable' };
          res.writeStatus(`${refusal.status} ${status[refusal.status]}`);
          if (refusal.retryAfter) res.writeHeader('Retry-After', '1');
          res.end(refusal.message, true);
          return;
        }
        const key = req.getHeader('sec-websocket-key');
        const extensions = req.getHeader('sec-websocket-extensions');
        // sockjs-client offers no subprotocol: STOMP versions are negotiated by CONNECT alone.
        const data: SocketData = { address, transport: null };
        res.upgrade<SocketData>(data, key, '', extensions, context);
      } catch (err) {
        log.warn({ where: 'sockjs upgrade', err: String(err) }, 'stomp: handler failed');
        try {
          res.close();
        } catch {
          // The request was aborted already.
        }
      }
    },

    open: (ws) => {
      hub.guard('sockjs open', null, () => {
        const now = Date.now();
        const data = ws.getUserData();
        const transport = new SockJsWebSocket(ws, now);
        data.transport = transport;
        transport.link = hub.open(transport, data.address, '1.2');
        if (transport.link === null) return;
        transport.opened(now);
        live.add(transport);
        started();
      });
    },

    message: (ws, message) => {
      const { transport } = ws.getUserData();
      const link = transport?.link;
      if (transport == null || link == null) return;
      hub.guard('sockjs message', link, () => {
        const payload = parseClientPayload(Buffer.from(message).toString('utf8'));
        if (!payload.ok) {
          transport.end(CLOSE_BROKEN_FRAMING, 'Broken framing.');
          return;
        }
        for (const text of payload.messages) hub.receive(link, Buffer.from(text, 'utf8'));
      });
    },

    close: (ws) => {
      const { transport } = ws.getUserData();
      if (transport === null) return;
      live.delete(transport);
      if (transport.link !== null) hub.closed(transport.link);
    },
  };
}
