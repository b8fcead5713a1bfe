/**
 * @module The key check of a request (front thread): the key from `X-API-Key` or
 * `Authorization: Bearer`, looked up in memory; 401 without a valid key, 403 without the scope,
 * 429 over the key's rate.
 */
import type { KeyStore } from '../auth/key-store.ts';
import type { Principal } from '../auth/principal.ts';
import { grants, type KeyScope } from '../domain/api-key.ts';
import { AppError } from '../errors.ts';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="vigil"' };

export const unauthorized = (reason: string): AppError =>
  new AppError('UNAUTHORIZED', reason, undefined, CHALLENGE);

export const missingScope = (needed: KeyScope, principal: Principal): AppError =>
  new AppError(
    'FORBIDDEN',
    `This needs a key with scope '${needed}'${needed === 'admin' ? '' : " or 'admin'"}; ` +
      `API key ${principal.label}… has scope '${principal.scope}'`,
  );

/** The token of an `Authorization: Bearer <token>` header; undefined for any other header. */
export const bearerToken = (authorization: string): string | undefined =>
  BEARER.exec(authorization)?.[1];

/** The key a request presents: X-API-Key first, else the Authorization header's bearer token. */
function presented(authorization: string, apiKey: string): string | AppError | undefined {
  if (apiKey !== '') return apiKey;
  if (authorization === '') return undefined;
  const token = bearerToken(authorization);
  return token ?? unauthorized("The Authorization header must be 'Bearer <key>'");
}

export function authorize(
  store: KeyStore,
  needed: KeyScope,
  authorization: string,
  apiKey: string,
  now: number,
): Principal | AppError {
  const key = presented(authorization, apiKey);
  if (key instanceof AppError) return key;
  const auth = store.authenticate(key, now);
  if (!auth.ok) return unauthorized(auth.reason);
  if (!grants(auth.principal.scope, needed)) return missingScope(needed, auth.principal);
  return auth.principal;
}

/**
 * Charges `cost` (events or requests) to the key's rate limit; throws 429 with Retry-After (whole
 * seconds, at least 1) when over it.
 */
export function charge(principal: Principal | null, cost: number, now: number, unit: string): void {
  const wait = principal?.limiter?.take(cost, now) ?? 0;
  if (wait === 0) return;
  throw new AppError(
    'RATE_LIMITED',
    `API key ${principal?.label}… is limited to ${principal?.limiter?.perSecond} ${unit}/s; retry later`,
    undefined,
    { 'Retry-After': String(Math.max(1, Math.ceil(wait / 1000))) },
  );
}
