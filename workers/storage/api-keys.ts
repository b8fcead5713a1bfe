/** @module The storage worker's API key operations. */
import * as apiKeys from '../../src/db/api-keys-repository.ts';
import type { ApiKeyHandlers } from '../../src/protocol/storage/index.ts';
import type { AreaTable, StorageContext } from './context.ts';

export const apiKeyHandlers = ({ sql, guarded }: StorageContext): AreaTable<ApiKeyHandlers> => ({
  async createApiKey({ fields, prefix, hash, maxKeys }) {
    const result = await guarded('createApiKey', () =>
      apiKeys.createApiKey(sql, fields, prefix, hash, maxKeys),
    );
    if (!result.ok) return result;
    if (result.value === 'KEY_LIMIT') {
      return {
        ok: false,
        code: 'KEY_LIMIT',
        message: `At most ${maxKeys} API keys may exist, revoked ones included`,
      };
    }
    return { ok: true, value: result.value };
  },
  listApiKeys: () => guarded('listApiKeys', () => apiKeys.listApiKeys(sql)),
  storedApiKeys: () => guarded('storedApiKeys', () => apiKeys.storedApiKeys(sql)),
  async revokeApiKey({ id }) {
    const result = await guarded('revokeApiKey', () => apiKeys.revokeApiKey(sql, id));
    if (!result.ok) return result;
    if (result.value === null)
      return { ok: false, code: 'NOT_FOUND', message: `API key ${id} not found` };
    return { ok: true, value: result.value };
  },
  touchApiKeys: ({ uses }) =>
    guarded('touchApiKeys', async () => {
      await apiKeys.touchApiKeys(sql, uses);
      return true as const;
    }),
});
