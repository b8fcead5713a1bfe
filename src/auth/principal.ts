/**
 * @module Who is calling: what an accepted key grants, held by a request or a STOMP session for
 * as long as it lasts (a session is closed once its key is revoked or expires).
 */
import type { KeyScope } from '../domain/api-key.ts';
import type { RateLimiter } from './rate-limit.ts';

export interface Principal {
  /** The stored key's id; null for the bootstrap key and when authentication is off. */
  readonly keyId: number | null;
  readonly scope: KeyScope;
  /** The key's visible prefix (or a name for the bootstrap key): safe to log. */
  readonly label: string;
  /** Ingest keys may be held to these sources; null: any source. */
  readonly allowedSources: ReadonlySet<string> | null;
  /** null: no limit. */
  readonly limiter: RateLimiter | null;
}

/** Everything, for everyone: the principal of every request when VIGIL_AUTH=off. */
export const UNAUTHENTICATED_ADMIN: Principal = Object.freeze({
  keyId: null,
  scope: 'admin',
  label: 'authentication off',
  allowedSources: null,
  limiter: null,
});
