/**
 * @module The uWS App (front thread): registers the route table, 405 with Allow for a known path
 * and another method, 404 for the rest; listens and closes the listen socket on shutdown.
 */
import type uWS from 'uWebSockets.js';
import { AppError } from '../errors.ts';
import { errorReply } from './error-response.ts';
import { adapt, type AdapterContext } from './route.ts';
import { send, type Exchange } from './reply.ts';
import type { Method, Route } from './route-types.ts';
import { nativeUws } from './uws.ts';

export interface HttpServer {
  readonly app: uWS.TemplatedApp;
  readonly port: number;
  /** Stops accepting connections; open ones stay until they finish or close. */
  closeListener(): void;
}

type Handler = (res: uWS.HttpResponse, req: uWS.HttpRequest) => void;
const register: Record<
  Method,
  (app: uWS.TemplatedApp) => (pattern: string, h: Handler) => uWS.TemplatedApp
> = {
  GET: (app) => app.get.bind(app),
  POST: (app) => app.post.bind(app),
  PUT: (app) => app.put.bind(app),
  DELETE: (app) => app.del.bind(app),
};

/** Methods answered 405 on a known path that lacks them (OPTIONS is the preflight's). */
const OTHER_METHODS: readonly [
  Method | 'HEAD' | 'PATCH',
  (app: uWS.TemplatedApp) => (pattern: string, h: Handler) => uWS.TemplatedApp,
][] = [
  ['GET', (app) => app.get.bind(app)],
  ['HEAD', (app) => app.head.bind(app)],
  ['POST', (app) => app.post.bind(app)],
  ['PUT', (app) => app.put.bind(app)],
  ['DELETE', (app) => app.del.bind(app)],
  ['PATCH', (app) => app.patch.bind(app)],
];

/**
 * An error answered by the server itself (404, 405, a refused preflight). A listed origin may read
 * it: without CORS headers a browser reports a CORS failure instead of the status.
 */
function answerNow(
  res: uWS.HttpResponse,
  req: uWS.HttpRequest,
  error: AppError,
  ctx: AdapterContext,
): void {
  const exchange: Exchange = {
    res,
    head: req.getMethod() === 'head',
    aborted: false,
    answered: false,
  };
  const origin = ctx.origins.any ? req.getHeader('origin') : '';
  if (origin !== '' && ctx.origins.listed(origin)) exchange.corsOrigin = origin;
  send(exchange, errorReply(error, ctx.log));
}

/**
 * OPTIONS: a CORS preflight from a listed origin is allowed (the key headers included; browsers may cache
 * the answer 10 minutes); from any other origin it is refused, so the browser never
 * sends the request itself. Without an Origin header it just lists the methods.
 */
function corsPreflight(ctx: AdapterContext): Handler {
  return (res, req) => {
    const origin = req.getHeader('origin');
    const exchange: Exchange = { res, head: false, aborted: false, answered: false };
    if (origin === '') {
      send(exchange, { status: 204, headers: { Allow: 'GET, HEAD, POST, PUT, DELETE, OPTIONS' } });
    } else if (ctx.origins.listed(origin)) {
      exchange.corsOrigin = origin;
      send(exchange, {
        status: 204,
        headers: {
          'Access-Control-Allow-Methods': 'GET, HEAD, POST, PUT, DELETE',
          'Access-Control-Allow-Headers': 'Authorization, X-API-Key, Content-Type',
          'Access-Control-Max-Age': '600',
        },
      });
    } else {
      answerNow(
        res,
        req,
        new AppError('FORBIDDEN', `Origin ${origin} is not allowed (VIGIL_ALLOWED_ORIGINS)`),
        ctx,
      );
    }
  };
}

export function buildApp(routes: readonly Route[], ctx: AdapterContext): uWS.TemplatedApp {
  const app = nativeUws().App();
  const methodsByPath = new Map<string, Method[]>();
  for (const route of routes) {
    const handler = adapt(route, ctx);
    register[route.method](app)(route.path, handler);
    // HEAD is GET without the body (RFC 9110): same status, headers and Content-Length.
    if (route.method === 'GET') app.head(route.path, handler);
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
  }
  const preflight = corsPreflight(ctx);
  for (const [path, methods] of methodsByPath) {
    app.options(path, preflight);
    const allow = methods.join(', ');
    const notAllowed: Handler = (res, req) => {
      const method = req.getCaseSensitiveMethod();
      answerNow(
        res,
        req,
        new AppError(
          'METHOD_NOT_ALLOWED',
          `Method ${method} is not allowed on ${req.getUrl()}`,
          undefined,
          { Allow: allow },
        ),
        ctx,
      );
    };
    // Each common method too, not only ANY: from uWS 20.5x a method's own route beats ANY on a
    // more specific path, so GET /api/v1/rules/test would reach GET /api/v1/rules/:id (404).
    for (const [method, add] of OTHER_METHODS) {
      const served = method === 'HEAD' ? 'GET' : method;
      if (!(methods as readonly string[]).includes(served)) {
        add(app)(path, notAllowed);
      }
    }
    app.any(path, notAllowed);
  }
  app.options('/*', preflight);
  app.any('/*', (res, req) => {
    answerNow(
      res,
      req,
      new AppError('NOT_FOUND', `No route for ${req.getCaseSensitiveMethod()} ${req.getUrl()}`),
      ctx,
    );
  });
  return app;
}

export function listen(app: uWS.TemplatedApp, host: string, port: number): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    app.listen(host, port, (token) => {
      if (token === false) {
        reject(new Error(`Cannot listen on ${host}:${port}`));
        return;
      }
      resolve({
        app,
        port: nativeUws().us_socket_local_port(token),
        closeListener: () => nativeUws().us_listen_socket_close(token),
      });
    });
  });
}
