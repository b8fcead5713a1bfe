// Wires STOMP onto a uWS app: raw STOMP over WebSocket on `paths` (subprotocol negotiated at the
// upgrade), and the SockJS protocol under `sockJsBase`, every session in one hub (hub.ts). Runs on
// the front thread; no callback throws.
import type { TemplatedApp, WebSocket, WebSocketBehavior } from 'uWebSockets.js';
import { createHub, type Link } from './hub.ts';
import { resolve, type StompEndpoint, type StompEndpointOptions } from './options.ts';
import { negotiateSubprotocol, type StompVersion } from './session.ts';
import { attachSockJs } from './sockjs/attach.ts';

export type { StompEndpoint, StompEndpointOptions, StompLogger, StompStats } from './options.ts';

/**
 * Per-socket user data. Our uWS fork copies the own properties of the object given to
 * res.upgrade() onto the socket (getUserData() returns the socket, prototype lost), so the
 * session is held by reference in a field, set once the socket is open.
 */
interface SocketData {
  readonly address: string;
  readonly maxVersion: StompVersion;
  link: Link | null;
}

type Socket = WebSocket<SocketData>;

/** A raw WebSocket as a STOMP transport: each frame is one binary-safe WebSocket message. */
const rawTransport = (ws: Socket) => ({
  send: (frame: Uint8Array) => ws.send(frame, false),
  getBufferedAmount: () => ws.getBufferedAmount(),
  end: (code: number, reason: string) => ws.end(code, reason),
  close: () => ws.close(),
});

export function attachStomp(app: TemplatedApp, options: StompEndpointOptions): StompEndpoint {
  const config = resolve(options);
  const hub = createHub(config, options);
  const { log } = options;

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
        const address = Buffer.from(res.getRemoteAddressAsText()).toString('latin1');
        const refusal = hub.admit(address, req.getHeader('origin'), req.getHeader('host'));
        if (refusal !== null) {
          res.writeStatus(refusal.status === 403 ? '403 Forbidden' : statusLine(refusal.status));
          if (refusal.retryAfter) res.writeHeader('Retry-After', '1');
          res.end(refusal.message, true);
          return;
        }
        // req is only valid during this call: read everything before upgrading.
        const key = req.getHeader('sec-websocket-key');
        const offer = req.getHeader('sec-websocket-protocol');
        const extensions = req.getHeader('sec-websocket-extensions');
        const choice = negotiateSubprotocol(offer);
        const data: SocketData = { address, maxVersion: choice.maxVersion, link: null };
        res.upgrade<SocketData>(data, key, choice.protocol, extensions, context);
      } catch (err) {
        log.warn({ where: 'upgrade', err: String(err) }, 'stomp: handler failed');
        try {
          res.close();
        } catch {
          // The request was aborted already.
        }
      }
    },

    open: (ws) => {
      hub.guard('open', null, () => {
        const data = ws.getUserData();
        data.link = hub.open(rawTransport(ws), data.address, data.maxVersion);
      });
    },

    message: (ws, message) => {
      const { link } = ws.getUserData();
      // The decoder copies what it keeps: uWS neuters `message` when this callback returns.
      if (link !== null) hub.receive(link, new Uint8Array(message));
    },

    close: (ws) => {
      const { link } = ws.getUserData();
      if (link !== null) hub.closed(link);
    },
  };

  for (const path of config.paths) app.ws<SocketData>(path, behavior);
  if (config.sockJsBase !== null) attachSockJs(app, hub, config.sockJsBase);
  return hub;
}

const statusLine = (status: 429 | 503): string =>
  status === 429 ? '429 Too Many Requests' : '503 Service Unavailable';
