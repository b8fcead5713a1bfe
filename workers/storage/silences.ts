/** @module The storage worker's silence operations. */
import * as silences from '../../src/db/silences-repository.ts';
import type { SilenceHandlers } from '../../src/protocol/storage/index.ts';
import type { AreaTable, StorageContext } from './context.ts';

const silenceNotFound = (id: number) =>
  ({ ok: false, code: 'NOT_FOUND', message: `Silence ${id} not found` }) as const;

export const silenceHandlers = ({ sql, guarded }: StorageContext): AreaTable<SilenceHandlers> => ({
  async createSilence({ fields, now, maxOpen }) {
    const result = await guarded('createSilence', () =>
      silences.createSilence(sql, fields, now, maxOpen),
    );
    if (!result.ok) return result;
    if (result.value === 'UNKNOWN_RULE') {
      return { ok: false, code: 'UNKNOWN_RULE', message: `ruleId ${fields.ruleId} names no rule` };
    }
    if (result.value === 'SILENCE_LIMIT') {
      return {
        ok: false,
        code: 'SILENCE_LIMIT',
        message: `At most ${maxOpen} silences may be pending or active; end one to make room`,
      };
    }
    return { ok: true, value: result.value };
  },
  async getSilence({ id }) {
    const result = await guarded('getSilence', () => silences.getSilence(sql, id));
    if (!result.ok) return result;
    return result.value === null ? silenceNotFound(id) : { ok: true, value: result.value };
  },
  listSilences: ({ filter, now, page, size }) =>
    guarded('listSilences', () => silences.listSilences(sql, filter, now, page, size)),
  async endSilence({ id, now }) {
    const result = await guarded('endSilence', () => silences.endSilence(sql, id, now));
    if (!result.ok) return result;
    return result.value === null ? silenceNotFound(id) : { ok: true, value: result.value };
  },
});
