/**
 * @module The uWS request adapter (front thread): copy what is needed from `req` (it is only valid
 * synchronously), attach onAborted, read and parse the bounded body, call the handler, answer in
 * one corked write. Nothing thrown here can reach uWS: a handler's throw or rejection is a 500.
 */
import type uWS from 'uWebSockets.js';
import { AppError, validationError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { errorReply } from './error-response.ts';
import { readBody, readBytes } from './read-body.ts';
import { send, type Exchange, type Reply, type ReplyCounter } from './reply.ts';
import { sendStream } from './stream-reply.ts';
import { parseJson } from './json-body.ts';
import type { Query, Request, Route } from './route-types.ts';
import { acceptsGzip } from './accept-encoding.ts';
import { tooManyConnections, type ConnectionLimit } from './connection-limit.ts';
import { conflictingContentLength } from './content-length.ts';
import type { KeyStore } from '../auth/key-store.ts';
import { UNAUTHENTICATED_ADMIN, type Principal } from '../auth/principal.ts';
import type { KeyScope } from '../domain/api-key.ts';
import { authorize, charge } from './authorize.ts';
import type { OriginPolicy } from './origins.ts';
import { arrivalStamps, type IngestStageTimings } from '../actors/ingest-stages.ts';

export interface AdapterContext {
  readonly maxBodyBytes: number;
  readonly log: Logger;
  /** Counts requests in progress, so shutdown can wait for them; answers 503 while draining. */
  readonly gate: RequestGate;
  /** MAX_CONNECTIONS, shared with the STOMP endpoint; past it a request is answered 503. */
  readonly connections: ConnectionLimit;
  /** The keys requests are checked against; null: authentication off (VIGIL_AUTH=off). */
  readonly keys: KeyStore | null;
  readonly origins: OriginPolicy;
  /** INGEST_STAGE_TIMINGS: the stamped route's requests are timed stage by stage; null: off. */
  readonly ingestStages: IngestStageTimings | null;
}

export interface RequestGate {
  readonly draining: boolean;
  enter(): void;
  leave(): void;
}

const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

const paramNames = (path: string): string[] =>
  path
    .split('/')
    .filter((s) => s.startsWith(':'))
    .map((s) => s.slice(1));

export const shuttingDown = (): AppError =>
  new AppError('SHUTTING_DOWN', 'Service is shutting down', undefined, { Connection: 'close' });

/** The parameters of a route without any. */
const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});
/** The headers of a route that reads none. */
const NO_HEADERS: Readonly<Record<string, string>> = NO_PARAMS;

function copiedHeaders(
  names: readonly string[],
  req: uWS.HttpRequest,
): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  for (const name of names) headers[name] = req.getHeader(name);
  return headers;
}

/** The query of a request without one: nothing to parse, nothing to allocate. */
const NO_QUERY: Query = { get: () => null, getAll: () => [], forEach: () => undefined };

export function adapt(
  route: Route,
  ctx: AdapterContext,
): (res: uWS.HttpResponse, req: uWS.HttpRequest) => void {
  const names = paramNames(route.path);
  const serve = serveWith(route, names, ctx);
  // Made once per route, not per request: this runs for every ingest request.
  const release = (): void => ctx.connections.release();
  const failed = (error: unknown): void => {
    ctx.connections.release();
    ctx.log.error({ err: error }, 'unexpected error while answering a request');
  };
  return (res, req) => {
    // MAX_CONNECTIONS: a request holds a place until it is answered; one answered before this
    // returns gives it back at once.
    if (!ctx.connections.tryTake()) {
      const exchange = openExchange(res, req, route.answers);
      send(exchange, { ...errorReply(tooManyConnections(), ctx.log), close: true });
      return;
    }
    let pending: Promise<void> | undefined;
    try {
      pending = serve(res, req);
    } finally {
      if (pending === undefined) ctx.connections.release();
    }
    pending?.then(release, failed);
  };
}

const openExchange = (
  res: uWS.HttpResponse,
  req: uWS.HttpRequest,
  counter: ReplyCounter | undefined,
): Exchange => ({
  res,
  head: req.getMethod() === 'head',
  aborted: false,
  answered: false,
  counter,
});

/** Serves one request; a promise while the request is still in progress (body or answer pending). */
function serveWith(
  route: Route,
  names: readonly string[],
  ctx: AdapterContext,
): (res: uWS.HttpResponse, req: uWS.HttpRequest) => Promise<void> | undefined {
  return (res, req) => {
    const receivedAt = Date.now();
    const stamps =
      ctx.ingestStages !== null && route.stamped === true ? arrivalStamps() : undefined;
    const exchange = openExchange(res, req, route.answers);
    if (ctx.origins.any) {
      const origin = req.getHeader('origin');
      if (origin !== '' && ctx.origins.listed(origin)) exchange.corsOrigin = origin;
    }
    // Answers sent before this handler returns need no abort hook: uWS only requires one for a
    // response that is still open when the handler returns.
    if (ctx.gate.draining) {
      send(exchange, { ...errorReply(shuttingDown(), ctx.log), close: true });
      return undefined;
    }
    const scope = route.scope;
    const principal =
      scope === 'public' || route.acceptsToken?.(req.getHeader('authorization')) === true
        ? null
        : authorized(scope, req, receivedAt, ctx);
    if (principal instanceof AppError) {
      send(exchange, errorReply(principal, ctx.log));
      return undefined;
    }
    // Most routes (ingest, GET /metrics) have no parameters: nothing to decode or check.
    const params = names.length === 0 ? NO_PARAMS : checkedParams(names, req, exchange, ctx);
    if (params === null) return undefined;
    const rawQuery = req.getQuery();
    const head: RequestHead = {
      params,
      headers: route.headers === undefined ? NO_HEADERS : copiedHeaders(route.headers, req),
      query: rawQuery === undefined || rawQuery === '' ? NO_QUERY : new URLSearchParams(rawQuery),
      receivedAt,
      principal,
      // Read only for routes that answer gzip: ingest never pays for the header.
      acceptsGzip: route.gzip === true && acceptsGzip(req.getHeader('accept-encoding')),
      stamps,
    };
    if (route.body === 'none') {
      // A handler that answers from memory (GET /metrics) is written out before this returns;
      // only a pending answer needs to hear that the client went away.
      const reply = handle(route, { ...head, body: undefined, rawBody: '' }, ctx);
      if (reply instanceof Promise) res.onAborted(() => (exchange.aborted = true));
      return deliver(exchange, reply, ctx);
    }
    const conflict = conflictingContentLength(req);
    if (conflict !== null) {
      // Where this body ends is in doubt, and so is where the next request would start: close.
      send(exchange, { ...errorReply(conflict, ctx.log), close: true });
      return undefined;
    }
    const contentType = req.getHeader('content-type');
    const declared = Number(req.getHeader('content-length') || 0);
    const bytes = route.bytesBody;
    const asBytes = bytes?.when(contentType, (name) => req.getHeader(name)) === true;
    if (!asBytes && !JSON_MEDIA.test(contentType)) {
      send(
        exchange,
        errorReply(
          new AppError(
            'UNSUPPORTED_MEDIA_TYPE',
            `Content-Type must be application/json, got '${contentType}'`,
          ),
          ctx.log,
        ),
      );
      return undefined;
    }
    if (declared > ctx.maxBodyBytes) {
      send(
        exchange,
        errorReply(
          new AppError('PAYLOAD_TOO_LARGE', `Request body exceeds ${ctx.maxBodyBytes} bytes`),
          ctx.log,
        ),
      );
      return undefined;
    }
    if (asBytes) {
      const prefix = bytes?.headerPrefix;
      const withPrefix =
        prefix === undefined ? head : { ...head, headers: prefixed(prefix, req, head) };
      const reader = readBytes(res, ctx.maxBodyBytes);
      res.onAborted(() => {
        exchange.aborted = true;
        reader.abort();
      });
      return withBytes(route, exchange, reader.text, withPrefix, ctx);
    }
    const reader = readBody(res, ctx.maxBodyBytes);
    res.onAborted(() => {
      exchange.aborted = true;
      reader.abort();
    });
    return withBody(route, exchange, reader.text, head, ctx);
  };
}

/** The head's headers plus every request header starting with `prefix`. */
function prefixed(
  prefix: string,
  req: uWS.HttpRequest,
  head: RequestHead,
): Readonly<Record<string, string>> {
  const headers: Record<string, string> = { ...head.headers };
  req.forEach((name, value) => {
    if (name.startsWith(prefix)) headers[name] = value;
  });
  return headers;
}

/**
 * The body once received, or null once answered: its read failed (a 4xx), or the service began to
 * drain meanwhile. A request still receiving its body is not yet accepted work: it does not hold
 * the drain (a slow or stalled upload would otherwise keep shutdown waiting for uWS's idle timeout).
 */
async function received<T>(
  exchange: Exchange,
  body: Promise<T>,
  ctx: AdapterContext,
): Promise<T | null> {
  let value: T;
  try {
    value = await body;
  } catch (error) {
    send(exchange, errorReply(error, ctx.log));
    return null;
  }
  if (ctx.gate.draining) {
    send(exchange, { ...errorReply(shuttingDown(), ctx.log), close: true });
    return null;
  }
  return value;
}

/** As withBody, for a body the handler takes as bytes. */
async function withBytes(
  route: Route,
  exchange: Exchange,
  body: Promise<Buffer>,
  head: RequestHead,
  ctx: AdapterContext,
): Promise<void> {
  const bytes = await received(exchange, body, ctx);
  if (bytes === null) return;
  const request = { ...head, body: undefined, rawBody: '', bytes };
  await deliver(exchange, handle(route, request, ctx), ctx);
}

/**
 * The key's principal for a route that needs one, or the error to answer (checked before the body
 * is read: a client without a key never gets to send one). Ingest routes charge their events to
 * the rate limit themselves (a batch costs its size); every other route costs one request.
 */
function authorized(
  scope: KeyScope,
  req: uWS.HttpRequest,
  now: number,
  ctx: AdapterContext,
): Principal | AppError {
  if (ctx.keys === null) return UNAUTHENTICATED_ADMIN;
  const principal = authorize(
    ctx.keys,
    scope,
    req.getHeader('authorization'),
    req.getHeader('x-api-key'),
    now,
  );
  if (principal instanceof AppError || scope === 'ingest' || principal.limiter === null) {
    return principal;
  }
  try {
    charge(principal, 1, now, 'requests');
  } catch (error) {
    return error as AppError;
  }
  return principal;
}

/** What the adapter copied from `req` before the handler runs (req is only valid synchronously). */
type RequestHead = Omit<Request, 'body' | 'rawBody'>;

/** The handler's reply; a synchronous throw becomes the error's reply. */
function handle(route: Route, request: Request, ctx: AdapterContext): Reply | Promise<Reply> {
  try {
    return route.handle(request);
  } catch (error) {
    return errorReply(error, ctx.log);
  }
}

/**
 * Sends a reply at once, or once its promise settles (then answers a promise of that): a pending
 * reply holds the drain gate. A rejection, whatever it holds, becomes its error reply (a 500 for
 * anything but an AppError), never an unhandled rejection.
 */
function deliver(
  exchange: Exchange,
  reply: Reply | Promise<Reply>,
  ctx: AdapterContext,
): Promise<void> | undefined {
  if (!(reply instanceof Promise)) {
    send(exchange, reply);
    return undefined;
  }
  ctx.gate.enter();
  // One derived promise per request, not three (catch, then, finally): every ingest request
  // comes through here.
  return reply.then(
    (settled) => answerSettled(exchange, settled, ctx),
    (error: unknown) => answerSettled(exchange, errorReply(error, ctx.log), ctx),
  );
}

/** Sends a settled reply (or streams it), then lets go of the drain gate whatever happens. */
function answerSettled(
  exchange: Exchange,
  settled: Reply,
  ctx: AdapterContext,
): Promise<void> | undefined {
  if (settled.stream !== undefined) {
    return sendStream(exchange, { ...settled, stream: settled.stream }, ctx.log).finally(() =>
      ctx.gate.leave(),
    );
  }
  try {
    send(exchange, settled);
  } finally {
    ctx.gate.leave();
  }
  return undefined;
}

async function withBody(
  route: Route,
  exchange: Exchange,
  bodyText: Promise<string>,
  head: RequestHead,
  ctx: AdapterContext,
): Promise<void> {
  const rawBody = await received(exchange, bodyText, ctx);
  if (rawBody === null) return;
  let body: unknown;
  try {
    body = parseJson(rawBody);
  } catch (error) {
    send(exchange, errorReply(error, ctx.log));
    return;
  }
  await deliver(exchange, handle(route, { ...head, body, rawBody }, ctx), ctx);
  if (head.stamps !== undefined) ctx.ingestStages?.answered(head.stamps);
}

/** The route's decoded path parameters, or null once a 400 naming the bad one has been sent. */
function checkedParams(
  names: readonly string[],
  req: uWS.HttpRequest,
  exchange: Exchange,
  ctx: AdapterContext,
): Record<string, string> | null {
  const params = decodeParams(names, req);
  if (params === null) {
    send(
      exchange,
      errorReply(
        new AppError('VALIDATION_FAILED', 'Malformed percent-encoding in the path'),
        ctx.log,
      ),
    );
    return null;
  }
  // PostgreSQL cannot hold U+0000 in text: a parameter with one names nothing (DESIGN 2), and
  // passed on it would fail the query (500).
  const withNul = Object.keys(params).filter((name) => params[name]?.includes('\0'));
  if (withNul.length > 0) {
    send(
      exchange,
      errorReply(
        validationError(
          Object.fromEntries(
            withNul.map((name) => [name, `${name} must not contain the NUL character (U+0000)`]),
          ),
        ),
        ctx.log,
      ),
    );
    return null;
  }
  return params;
}

function decodeParams(
  names: readonly string[],
  req: uWS.HttpRequest,
): Record<string, string> | null {
  const params: Record<string, string> = {};
  try {
    names.forEach((name, i) => {
      params[name] = decodeURIComponent(req.getParameter(i) ?? '');
    });
  } catch {
    return null;
  }
  return params;
}
