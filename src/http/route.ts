/**
 * @module The uWS request adapter (front thread): copy what is needed from `req` (it is only valid
 * synchronously), attach onAborted, read and parse the bounded body, call the handler, answer in
 * one corked write. Nothing thrown here can reach uWS.
 */
import type uWS from 'uWebSockets.js';
import { AppError, validationError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { errorReply } from './error-response.ts';
import { readBody } from './read-body.ts';
import { send, type Exchange, type Reply } from './reply.ts';
import { depthOf } from '../schemas/json-guards.ts';
import type { Request, Route } from './route-types.ts';
import { acceptsGzip } from './accept-encoding.ts';

/**
 * Deeper than any valid body (event metadata nests at most 32 levels, rule JSON 64): refused
 * before any recursive check can overflow the stack.
 */
const MAX_BODY_DEPTH = 100;

export interface AdapterContext {
  readonly maxBodyBytes: number;
  readonly log: Logger;
  /** Counts requests in progress, so shutdown can wait for them; answers 503 while draining. */
  readonly gate: RequestGate;
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

export function adapt(
  route: Route,
  ctx: AdapterContext,
): (res: uWS.HttpResponse, req: uWS.HttpRequest) => void {
  const names = paramNames(route.path);
  return (res, req) => {
    const receivedAt = Date.now();
    const exchange: Exchange = {
      res,
      head: req.getMethod() === 'head',
      aborted: false,
      answered: false,
    };
    let abortBody: (() => void) | null = null;
    res.onAborted(() => {
      exchange.aborted = true;
      abortBody?.();
    });
    if (ctx.gate.draining) {
      send(exchange, { ...errorReply(shuttingDown(), ctx.log), close: true });
      return;
    }
    const params = decodeParams(names, req);
    if (params === null) {
      send(
        exchange,
        errorReply(
          new AppError('VALIDATION_FAILED', 'Malformed percent-encoding in the path'),
          ctx.log,
        ),
      );
      return;
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
      return;
    }
    const query = new URLSearchParams(req.getQuery() ?? '');
    let bodyText: Promise<string> | null = null;
    if (route.body === 'json') {
      const contentType = req.getHeader('content-type');
      const declared = Number(req.getHeader('content-length') || 0);
      if (!JSON_MEDIA.test(contentType)) {
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
        return;
      }
      if (declared > ctx.maxBodyBytes) {
        send(
          exchange,
          errorReply(
            new AppError('PAYLOAD_TOO_LARGE', `Request body exceeds ${ctx.maxBodyBytes} bytes`),
            ctx.log,
          ),
        );
        return;
      }
      const reader = readBody(res, ctx.maxBodyBytes);
      abortBody = reader.abort;
      bodyText = reader.text;
    }
    const head: RequestHead = {
      params,
      query,
      receivedAt,
      // Read only for routes that answer gzip: ingest never pays for the header.
      acceptsGzip: route.gzip === true && acceptsGzip(req.getHeader('accept-encoding')),
    };
    void run(route, exchange, bodyText, head, ctx);
  };
}

/** What the adapter copied from `req` before the handler runs (req is only valid synchronously). */
type RequestHead = Omit<Request, 'body' | 'rawBody'>;

async function run(
  route: Route,
  exchange: Exchange,
  bodyText: Promise<string> | null,
  head: RequestHead,
  ctx: AdapterContext,
): Promise<void> {
  let rawBody = '';
  if (bodyText !== null) {
    // A request still receiving its body is not yet accepted work: it does not hold the drain
    // (a slow or stalled upload would otherwise keep shutdown waiting for uWS's idle timeout).
    try {
      rawBody = await bodyText;
    } catch (error) {
      send(exchange, errorReply(error, ctx.log));
      return;
    }
    if (ctx.gate.draining) {
      send(exchange, { ...errorReply(shuttingDown(), ctx.log), close: true });
      return;
    }
  }
  ctx.gate.enter();
  try {
    let reply: Reply;
    try {
      const body = bodyText === null ? undefined : parseJson(rawBody);
      reply = await route.handle({ ...head, body, rawBody });
    } catch (error) {
      reply = errorReply(error, ctx.log);
    }
    send(exchange, reply);
  } finally {
    ctx.gate.leave();
  }
}

function decodeParams(
  names: readonly string[],
  req: uWS.HttpRequest,
): Record<string, string> | null {
  const params: Record<string, string> = {};
  try {
    names.forEach((name, i) => {
      params[name] = decodeURIComponent(req.getParameter(i));
    });
  } catch {
    return null;
  }
  return params;
}

/**
 * How many `{` and `[` the text holds: an upper bound of its nesting depth, counted without
 * allocating, so the tree walk runs only for bodies that could be too deep (not on every ingest).
 */
function openers(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) n++;
  }
  return n;
}

function parseJson(text: string): unknown {
  if (text.trim() === '')
    throw new AppError('MALFORMED_JSON', 'Request body is empty; a JSON body is required');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AppError('MALFORMED_JSON', `Malformed JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object') {
    throw new AppError('MALFORMED_JSON', 'Request body must be a JSON object');
  }
  // Schema checks recurse: a body nested deeper than any valid one is refused before them.
  if (openers(text) > MAX_BODY_DEPTH && depthOf(value) > MAX_BODY_DEPTH) {
    throw validationError({ body: `The body must not nest deeper than ${MAX_BODY_DEPTH} levels` });
  }
  return value;
}
