/**
 * @module Serving the dashboard from uWS (front thread): GET and HEAD of `/`, `/assets/*` and the API
 * reference page from memory, synchronously (the reference's bundle once encoded at its first
 * request): the encoding the client accepts (br, then gzip, else none), 304 for a matching
 * If-None-Match. Assets are public (the pages hold no data); the data needs a key.
 */
import type uWS from 'uWebSockets.js';
import { notFound } from '../errors.ts';
import type { Logger } from '../log.ts';
import { accepts } from '../http/accept-encoding.ts';
import { errorReply } from '../http/error-response.ts';
import type { OriginPolicy } from '../http/origins.ts';
import { send, type Exchange } from '../http/reply.ts';
import { API_REFERENCE_PATH } from './api-reference.ts';
import type { Asset, Dashboard, Encoded } from './assets.ts';

interface Chosen {
  readonly encoded: Encoded;
  readonly coding: 'br' | 'gzip' | null;
}

function choose(asset: Asset, acceptEncoding: string): Chosen {
  if (accepts(acceptEncoding, 'br')) return { encoded: asset.br, coding: 'br' };
  if (accepts(acceptEncoding, 'gzip')) return { encoded: asset.gzip, coding: 'gzip' };
  return { encoded: asset.identity, coding: null };
}

/** If-None-Match names this asset in any of its encodings (or `*`). */
function matches(ifNoneMatch: string, asset: Asset): boolean {
  if (ifNoneMatch === '') return false;
  const tags = new Set([asset.identity.etag, asset.gzip.etag, asset.br.etag]);
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tags.has(tag));
}

/** What an answer depends on, read before uWS's request is gone (a lazy asset awaits). */
interface Asked {
  readonly head: boolean;
  readonly ifNoneMatch: string;
  readonly acceptEncoding: string;
}

const asked = (req: uWS.HttpRequest): Asked => ({
  head: req.getMethod() === 'head',
  ifNoneMatch: req.getHeader('if-none-match'),
  acceptEncoding: req.getHeader('accept-encoding'),
});

function answer(res: uWS.HttpResponse, request: Asked, asset: Asset): void {
  const { head } = request;
  const notModified = matches(request.ifNoneMatch, asset);
  const { encoded, coding } = choose(asset, request.acceptEncoding);
  res.cork(() => {
    res.writeStatus(notModified ? '304 Not Modified' : '200 OK');
    res.writeHeader('ETag', encoded.etag);
    res.writeHeader('Cache-Control', asset.cacheControl);
    res.writeHeader('Vary', 'Accept-Encoding');
    res.writeHeader('X-Content-Type-Options', 'nosniff');
    for (const name in asset.headers) res.writeHeader(name, asset.headers[name] as string);
    if (notModified) {
      res.endWithoutBody();
      return;
    }
    res.writeHeader('Content-Type', asset.type);
    if (coding !== null) res.writeHeader('Content-Encoding', coding);
    // As the API's HEAD: the length is announced but not sent, so the connection cannot be reused.
    if (head) res.endWithoutBody(encoded.body.length, true);
    else res.end(encoded.body);
  });
}

/** An asset encoded at its first request: the answer waits for it, unless the client leaves. */
function answerLater(
  res: uWS.HttpResponse,
  request: Asked,
  load: () => Promise<Asset>,
  log: Logger,
): void {
  const exchange = { res, head: request.head, aborted: false, answered: false };
  res.onAborted(() => {
    exchange.aborted = true;
  });
  load().then(
    (asset) => {
      if (!exchange.aborted) answer(res, request, asset);
    },
    (error: unknown) => send(exchange, errorReply(error, log)),
  );
}

/**
 * Registers `/`, `/assets/*` and the API reference page; other paths keep the API's JSON 404, which
 * a listed origin may read (CORS), as every 404 of the server.
 */
export function serveDashboard(
  app: uWS.TemplatedApp,
  dashboard: Dashboard,
  log: Logger,
  origins: OriginPolicy,
): void {
  const handler = (res: uWS.HttpResponse, req: uWS.HttpRequest): void => {
    const url = req.getUrl();
    const asset = dashboard.assets.get(url);
    if (asset !== undefined) {
      const request = asked(req);
      // uWS needs an abort handler when a synchronous handler ends without a body.
      if (request.head || matches(request.ifNoneMatch, asset)) res.onAborted(() => undefined);
      answer(res, request, asset);
      return;
    }
    const lazy = dashboard.lazy.get(url);
    if (lazy !== undefined) {
      answerLater(res, asked(req), lazy, log);
      return;
    }
    const exchange: Exchange = {
      res,
      head: req.getMethod() === 'head',
      aborted: false,
      answered: false,
    };
    const origin = origins.any ? req.getHeader('origin') : '';
    if (origin !== '' && origins.listed(origin)) exchange.corsOrigin = origin;
    send(exchange, errorReply(notFound(`No dashboard asset ${url}`), log));
  };
  for (const path of ['/', '/assets/*', API_REFERENCE_PATH]) {
    app.get(path, handler);
    app.head(path, handler);
  }
}
