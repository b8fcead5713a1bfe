/**
 * @module The SockJS protocol under a base path (front thread), for sockjs-client and the
 * Spring-style dashboards built on it: GET <base>/info, the websocket transport, and the
 * xhr-streaming and xhr-polling fallbacks (POST .../xhr_streaming, .../xhr, .../xhr_send). Every
 * transport opens its STOMP session in the one hub, so keys, origins and bounds are those of raw
 * STOMP sockets. Other transports (eventsource, iframe, jsonp) get the server's 404, and the client
 * moves on to the next one. Hand-written: the `sockjs` server package needs a Node http.Server.
 */
import { randomBytes } from 'node:crypto';
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { AppError } from '../../errors.ts';
import { readBody } from '../../http/read-body.ts';
import type { StompHub } from '../hub.ts';
import { parseClientPayload } from './framing.ts';
import { answerError, senderOf, writeHead, type Sender } from './http.ts';
import { Receiver } from './receiver.ts';
import { sockJsWebSocketBehavior, type SockJsWebSocket } from './websocket.ts';
import { XhrSession, type XhrTimings } from './xhr-session.ts';

/** sockjs-node's rule for server and session ids: no dot; uWS parameters hold no slash. */
const ID = /^[^/.]{1,64}$/;
const CLOSE_TOO_BIG = 1009;
const YEAR_SECONDS = '31536000';

export function attachSockJs(app: TemplatedApp, hub: StompHub, base: string): void {
  const { config } = hub;
  const timings: XhrTimings = {
    heartbeatMs: config.sockJsHeartbeatMs,
    disconnectMs: config.sockJsDisconnectMs,
    responseLimitBytes: config.sockJsResponseLimitBytes,
  };
  const xhrSessions = new Map<string, XhrSession>();
  const sockets = new Set<SockJsWebSocket>();
  let timer: NodeJS.Timeout | null = null;

  function tick(): void {
    const now = Date.now();
    for (const socket of sockets) {
      hub.guard('sockjs heartbeat', socket.link, () => socket.heartbeat(now, timings.heartbeatMs));
    }
    for (const [id, session] of xhrSessions) {
      hub.guard('sockjs tick', session.link, () => {
        if (!session.tick(now)) xhrSessions.delete(id);
      });
    }
    if (sockets.size === 0 && xhrSessions.size === 0 && timer !== null) {
      clearInterval(timer);
      timer = null;
    }
  }

  function started(): void {
    if (timer !== null) return;
    const every = Math.min(1000, timings.heartbeatMs / 4, timings.disconnectMs / 4);
    timer = setInterval(tick, Math.max(10, Math.floor(every)));
    timer.unref();
  }

  /** The Origin CORS may name: an allowed one; '' for none. False: refused (answered 403). */
  function corsOrigin(res: HttpResponse, sender: Sender): string | false {
    if (sender.origin === '' || hub.originAllowed(sender.origin, sender.host)) {
      return sender.origin;
    }
    answerError(res, '', 'FORBIDDEN', `Origin ${sender.origin} is not allowed`);
    return false;
  }

  /** The session id of a session URL, or null (answered 404). */
  function sessionId(res: HttpResponse, req: HttpRequest, origin: string): string | null {
    const server = req.getParameter(0) ?? '';
    const session = req.getParameter(1) ?? '';
    if (ID.test(server) && ID.test(session)) return session;
    answerError(res, origin, 'NOT_FOUND', `No SockJS session URL ${req.getUrl()}`);
    return null;
  }

  const preflight =
    (methods: string) =>
    (res: HttpResponse, req: HttpRequest): void => {
      const sender = senderOf(res, req);
      const origin = corsOrigin(res, sender);
      if (origin === false) return;
      const requested = req.getHeader('access-control-request-headers');
      res.writeStatus('204 No Content');
      res.writeHeader('Cache-Control', `public, max-age=${YEAR_SECONDS}`);
      res.writeHeader('Access-Control-Allow-Methods', methods);
      res.writeHeader('Access-Control-Max-Age', YEAR_SECONDS);
      if (requested !== '') res.writeHeader('Access-Control-Allow-Headers', requested);
      if (origin !== '') {
        res.writeHeader('Access-Control-Allow-Origin', origin);
        res.writeHeader('Access-Control-Allow-Credentials', 'true');
        res.writeHeader('Vary', 'Origin');
      }
      res.endWithoutBody(0);
    };

  app.get(`${base}/info`, (res, req) => {
    const origin = corsOrigin(res, senderOf(res, req));
    if (origin === false) return;
    writeHead(res, 200, 'application/json;charset=UTF-8', origin);
    res.end(
      JSON.stringify({
        websocket: true,
        origins: ['*:*'],
        cookie_needed: false,
        entropy: randomBytes(4).readUInt32LE(0),
      }),
    );
  });
  app.options(`${base}/info`, preflight('OPTIONS, GET'));

  app.ws(`${base}/:server/:session/websocket`, sockJsWebSocketBehavior(hub, sockets, started));

  const receiving =
    (streaming: boolean) =>
    (res: HttpResponse, req: HttpRequest): void => {
      const sender = senderOf(res, req);
      const origin = corsOrigin(res, sender);
      if (origin === false) return;
      const id = sessionId(res, req, origin);
      if (id === null) return;
      const now = Date.now();
      const existing = xhrSessions.get(id);
      if (existing !== undefined) {
        if (existing.address !== sender.address) {
          answerError(res, origin, 'NOT_FOUND', `No SockJS session ${id} for this client`);
          return;
        }
        const receiver: Receiver = new Receiver(res, streaming, origin, now, () =>
          existing.gone(receiver, Date.now()),
        );
        existing.attach(receiver, now);
        return;
      }
      const refusal = hub.admit(sender.address, sender.origin, sender.host);
      if (refusal !== null) {
        const code =
          refusal.status === 403
            ? 'FORBIDDEN'
            : refusal.status === 429
              ? 'RATE_LIMITED'
              : 'TOO_MANY_CONNECTIONS';
        const headers: Record<string, string> = refusal.retryAfter ? { 'Retry-After': '1' } : {};
        answerError(res, origin, code, refusal.message, { headers });
        return;
      }
      const session = new XhrSession(sender.address, hub, timings, now);
      const receiver: Receiver = new Receiver(res, streaming, origin, now, () =>
        session.gone(receiver, Date.now()),
      );
      xhrSessions.set(id, session);
      started();
      session.link = hub.open(session, sender.address, '1.2');
      if (session.link === null) session.attach(receiver, now);
      else session.opened(receiver, now);
    };

  for (const [transport, streaming] of [
    ['xhr', false],
    ['xhr_streaming', true],
  ] as const) {
    app.post(`${base}/:server/:session/${transport}`, receiving(streaming));
    app.options(`${base}/:server/:session/${transport}`, preflight('OPTIONS, POST'));
  }

  app.post(`${base}/:server/:session/xhr_send`, (res, req) => {
    const sender = senderOf(res, req);
    const origin = corsOrigin(res, sender);
    if (origin === false) return;
    const id = sessionId(res, req, origin);
    if (id === null) return;
    const session = xhrSessions.get(id);
    const link = session?.link;
    if (
      session === undefined ||
      link == null ||
      session.ended ||
      session.address !== sender.address
    ) {
      // The unread body would otherwise be taken for the next request on this connection.
      answerError(res, origin, 'NOT_FOUND', `No open SockJS session ${id}`, { close: true });
      return;
    }
    let aborted = false;
    const body = readBody(res, config.maxMessageBytes);
    res.onAborted(() => {
      aborted = true;
      body.abort();
    });
    body.text.then(
      (text) => {
        if (aborted) return;
        const payload = parseClientPayload(text);
        if (text === '' || !payload.ok) {
          const why = payload.ok ? 'Payload expected.' : payload.reason;
          answerError(res, origin, 'MALFORMED_JSON', `xhr_send: ${why}`);
          return;
        }
        for (const message of payload.messages) hub.receive(link, Buffer.from(message, 'utf8'));
        res.cork(() => {
          writeHead(res, 204, 'text/plain;charset=UTF-8', origin);
          res.endWithoutBody(0);
        });
      },
      (error: unknown) => {
        if (aborted) return;
        const known = error instanceof AppError ? error : null;
        if (known?.code === 'PAYLOAD_TOO_LARGE') {
          // As a raw WebSocket message over maxMessageBytes: the session ends too.
          hub.guard('sockjs xhr_send', link, () => session.end(CLOSE_TOO_BIG, 'message too big'));
        }
        const code = known?.code ?? 'MALFORMED_JSON';
        answerError(res, origin, code, known?.message ?? 'xhr_send failed', { close: true });
      },
    );
  });
}
