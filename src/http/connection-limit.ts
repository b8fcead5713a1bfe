/**
 * @module MAX_CONNECTIONS (front thread): one count shared by the HTTP adapter and the STOMP
 * endpoint. uWebSockets.js reports no HTTP connection events, so what is counted is what holds
 * resources: open WebSockets, and HTTP requests in progress (a body being read or an answer
 * pending). An idle keep-alive connection holds only its socket, and uWS closes it after 10 s.
 */
import { AppError } from '../errors.ts';

export interface ConnectionLimit {
  /** Takes a place; false (nothing taken) when `max` are taken. */
  tryTake(): boolean;
  /** Gives back a place taken by tryTake. */
  release(): void;
  /** All places are taken (a WebSocket upgrade is refused before its socket exists). */
  full(): boolean;
  /** Places taken now. */
  inUse(): number;
}

export function createConnectionLimit(max: number): ConnectionLimit {
  let taken = 0;
  return {
    tryTake() {
      if (taken >= max) return false;
      taken++;
      return true;
    },
    release() {
      taken--;
    },
    full: () => taken >= max,
    inUse: () => taken,
  };
}

/** No bound: for tests and tools that build an app without the service. */
export const UNLIMITED_CONNECTIONS: ConnectionLimit = createConnectionLimit(
  Number.POSITIVE_INFINITY,
);

/** Answered with `close` (uWS then writes `Connection: close` itself). */
export const tooManyConnections = (): AppError =>
  new AppError('TOO_MANY_CONNECTIONS', 'Too many connections, retry later', undefined, {
    'Retry-After': '1',
  });
