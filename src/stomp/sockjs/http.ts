/**
 * @module The HTTP side of SockJS's xhr transports on uWS: what a request says about its sender, and
 * answers with the protocol's headers. CORS names the page's origin and allows credentials, since
 * sockjs-client sends every cross-origin XHR `withCredentials` (a bare `*` would be refused).
 */
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import { ERROR_STATUS, type ErrorCode } from '../../errors.ts';

export interface Sender {
  readonly address: string;
  /** The Origin header, '' when none (not a browser page). */
  readonly origin: string;
  readonly host: string;
}

export function senderOf(res: HttpResponse, req: HttpRequest): Sender {
  return {
    address: Buffer.from(res.getRemoteAddressAsText()).toString('latin1'),
    origin: req.getHeader('origin'),
    host: req.getHeader('host'),
  };
}

export const NO_CACHE = 'no-store, no-cache, no-transform, must-revalidate, max-age=0';
export const JAVASCRIPT = 'application/javascript;charset=UTF-8';

const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK',
  204: 'No Content',
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

/** Status line and headers; inside the request handler or a cork. `origin` must be allowed. */
export function writeHead(
  res: HttpResponse,
  status: number,
  contentType: string,
  origin: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeStatus(`${status} ${STATUS_TEXT[status] ?? ''}`);
  res.writeHeader('Content-Type', contentType);
  res.writeHeader('Cache-Control', NO_CACHE);
  res.writeHeader('X-Content-Type-Options', 'nosniff');
  if (origin !== '') {
    res.writeHeader('Access-Control-Allow-Origin', origin);
    res.writeHeader('Access-Control-Allow-Credentials', 'true');
    res.writeHeader('Vary', 'Origin');
  }
  for (const name in headers) res.writeHeader(name, headers[name] as string);
}

/** The API's error body, `{ status: 'error', code, message }`, with the SockJS CORS headers. */
export function answerError(
  res: HttpResponse,
  origin: string,
  code: ErrorCode,
  message: string,
  options: { readonly headers?: Record<string, string>; readonly close?: boolean } = {},
): void {
  res.cork(() => {
    writeHead(res, ERROR_STATUS[code], 'application/json', origin, options.headers);
    res.end(JSON.stringify({ status: 'error', code, message }), options.close === true);
  });
}
