/** @module The storage pool's API key operations. */
import type { ApiKeyFields, ApiKeyRecord, StoredApiKey } from '../../domain/api-key.ts';
import type { DbFailure, Result } from './result.ts';

export interface ApiKeyHandlers {
  /** Refused with KEY_LIMIT when `maxKeys` keys (revoked ones included) exist. */
  createApiKey(input: {
    readonly fields: ApiKeyFields;
    readonly prefix: string;
    readonly hash: string;
    readonly maxKeys: number;
  }): Promise<Result<ApiKeyRecord, DbFailure | 'KEY_LIMIT'>>;
  listApiKeys(input: Record<string, never>): Promise<Result<readonly ApiKeyRecord[], DbFailure>>;
  /** Every key with its hash: for the front thread's key store only. */
  storedApiKeys(input: Record<string, never>): Promise<Result<readonly StoredApiKey[], DbFailure>>;
  revokeApiKey(input: {
    readonly id: number;
  }): Promise<Result<ApiKeyRecord, DbFailure | 'NOT_FOUND'>>;
  touchApiKeys(input: {
    readonly uses: readonly { readonly id: number; readonly at: number }[];
  }): Promise<Result<true, DbFailure>>;
}
