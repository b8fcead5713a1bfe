/**
 * @module The key check of a STOMP CONNECT: a key that grants `read` (every destination is a
 * read), as for a GET. The session keeps the principal, so a revocation can end it.
 */
import { grants } from '../domain/api-key.ts';
import type { StompAuthentication } from './session.ts';
import type { KeyStore } from '../auth/key-store.ts';

export const stompAuthenticator =
  (store: KeyStore) =>
  (presented: string | undefined, now: number): StompAuthentication => {
    if (presented === undefined || presented === '') {
      return {
        ok: false,
        reason: 'CONNECT needs an API key: as its passcode header, or Authorization: Bearer <key>',
      };
    }
    const auth = store.authenticate(presented, now);
    if (!auth.ok) return auth;
    const { principal } = auth;
    if (!grants(principal.scope, 'read')) {
      return {
        ok: false,
        reason: `STOMP needs a key with scope 'read' or 'admin'; API key ${principal.label}… has scope '${principal.scope}'`,
      };
    }
    return auth;
  };
