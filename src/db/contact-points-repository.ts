/**
 * @module Contact point SQL (storage workers), parameterised queries only. The unique name and the
 * one default per type are enforced by the table (migration 1763840000005); making a contact point
 * the default clears the previous default of its type in the same transaction.
 */
import type { ContactPoint, ContactPointFields } from '../domain/contact-points/contact-point.ts';
import type { NotificationChannel } from '../domain/rules/rule-types.ts';
import type { Sql, Tx } from './connect.ts';

interface ContactPointRow {
  id: number;
  name: string;
  type: NotificationChannel;
  is_default: boolean;
  settings: ContactPoint['settings'];
  created_at: Date;
  updated_at: Date;
}

const toRecord = (row: ContactPointRow): ContactPoint => ({
  id: row.id,
  name: row.name,
  type: row.type,
  isDefault: row.is_default,
  settings: row.settings,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const isNameTaken = (error: unknown): boolean =>
  (error as { code?: string }).code === '23505' &&
  (error as { constraint_name?: string }).constraint_name === 'contact_points_name_key';

const json = (sql: Sql | Tx, value: unknown) => sql.json(value as Parameters<Sql['json']>[0]);

/** Every contact point, by id (what the front thread keeps in memory). */
export async function listContactPoints(sql: Sql): Promise<ContactPoint[]> {
  const rows = await sql<ContactPointRow[]>`SELECT * FROM contact_points ORDER BY id`;
  return rows.map(toRecord);
}

export async function getContactPoint(sql: Sql, id: number): Promise<ContactPoint | null> {
  const [row] = await sql<ContactPointRow[]>`SELECT * FROM contact_points WHERE id = ${id}`;
  return row === undefined ? null : toRecord(row);
}

/** Inserts (`id` null) or replaces a contact point's fields; its type never changes. */
export async function saveContactPoint(
  sql: Sql,
  id: number | null,
  fields: ContactPointFields,
): Promise<ContactPoint | 'NAME_TAKEN' | 'NOT_FOUND'> {
  try {
    return await sql.begin(async (tx) => {
      if (fields.isDefault) {
        await tx`
          UPDATE contact_points SET is_default = false, updated_at = now()
          WHERE type = ${fields.type} AND is_default AND id IS DISTINCT FROM ${id}`;
      }
      const [row] =
        id === null
          ? await tx<ContactPointRow[]>`
              INSERT INTO contact_points (name, type, is_default, settings)
              VALUES (${fields.name}, ${fields.type}, ${fields.isDefault},
                      ${json(tx, fields.settings)})
              RETURNING *`
          : await tx<ContactPointRow[]>`
              UPDATE contact_points SET name = ${fields.name}, is_default = ${fields.isDefault},
                settings = ${json(tx, fields.settings)}, updated_at = now()
              WHERE id = ${id} AND type = ${fields.type}
              RETURNING *`;
      return row === undefined ? ('NOT_FOUND' as const) : toRecord(row);
    });
  } catch (error) {
    if (isNameTaken(error)) return 'NAME_TAKEN';
    throw error;
  }
}

export async function deleteContactPoint(sql: Sql, id: number): Promise<boolean> {
  const rows = await sql`DELETE FROM contact_points WHERE id = ${id} RETURNING id`;
  return rows.length > 0;
}
