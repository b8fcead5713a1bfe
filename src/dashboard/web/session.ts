/**
 * @module The signed-in key: kept in sessionStorage (this tab only, gone when it closes), checked
 * with GET /api/v1/keys/self, which says what it grants. The key itself is never shown again.
 */
import { createApi, type Api } from './api.ts';

const STORAGE_KEY = 'vigil.apiKey';

export type Scope = 'ingest' | 'read' | 'admin';

export interface Session {
  readonly api: Api;
  readonly key: string;
  readonly scope: Scope;
  /** The key's visible prefix. */
  readonly label: string;
}

export const isAdmin = (session: Session): boolean => session.scope === 'admin';

export const storedKey = (): string | null => sessionStorage.getItem(STORAGE_KEY);

export function forgetKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** Checks `key` against the service; keeps it for the tab when it grants read. */
export async function signIn(key: string): Promise<Session> {
  const api = createApi(key);
  const self = await api.get<{ scope: Scope; label: string }>('/api/v1/keys/self');
  sessionStorage.setItem(STORAGE_KEY, key);
  return { api, key, scope: self.scope, label: self.label };
}
