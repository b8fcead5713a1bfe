/** @module The storage worker's contact point operations. */
import * as contactPoints from '../../src/db/contact-points-repository.ts';
import type { ContactPointHandlers } from '../../src/protocol/storage/index.ts';
import type { AreaTable, StorageContext } from './context.ts';

const NO_CONTACT_POINT = {
  ok: false,
  code: 'NOT_FOUND',
  message: 'Contact point not found',
} as const;

export const contactPointHandlers = ({
  sql,
  guarded,
}: StorageContext): AreaTable<ContactPointHandlers> => ({
  listContactPoints: () => guarded('listContactPoints', () => contactPoints.listContactPoints(sql)),
  async getContactPoint({ id }) {
    const result = await guarded('getContactPoint', () => contactPoints.getContactPoint(sql, id));
    if (!result.ok) return result;
    return result.value === null ? NO_CONTACT_POINT : { ok: true, value: result.value };
  },
  async saveContactPoint({ id, fields }) {
    const result = await guarded('saveContactPoint', () =>
      contactPoints.saveContactPoint(sql, id, fields),
    );
    if (!result.ok) return result;
    if (result.value === 'NOT_FOUND') return NO_CONTACT_POINT;
    if (result.value === 'NAME_TAKEN') {
      return {
        ok: false,
        code: 'NAME_TAKEN',
        message: 'A contact point with this name already exists',
      };
    }
    return { ok: true, value: result.value };
  },
  async deleteContactPoint({ id }) {
    const result = await guarded('deleteContactPoint', () =>
      contactPoints.deleteContactPoint(sql, id),
    );
    if (!result.ok) return result;
    return result.value ? { ok: true, value: true } : NO_CONTACT_POINT;
  },
});
