/**
 * @module The keyset cursor of an event search: the (timestamp, id) of the last event of a page,
 * which the next page starts strictly after in (timestamp desc, id desc) order. Opaque to clients
 * (base64url), so that its inside may change; a new event never shifts a cursor's pages.
 */

export interface EventCursor {
  /** Epoch ms of the last event's timestamp. */
  readonly ts: number;
  readonly id: number;
}

export const encodeCursor = (c: EventCursor): string =>
  Buffer.from(`${c.ts}:${c.id}`, 'utf8').toString('base64url');

const SHAPE = /^(-?\d{1,16}):(\d{1,19})$/;
/** A base64url text of a shape no longer than a cursor can be. */
const BASE64URL = /^[A-Za-z0-9_-]{1,64}$/;

/** The cursor a text holds, or null when it is not one this API gave. */
export function decodeCursor(text: string): EventCursor | null {
  if (!BASE64URL.test(text)) return null;
  const match = SHAPE.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (match === null) return null;
  const ts = Number(match[1]);
  const id = Number(match[2]);
  return Number.isSafeInteger(ts) && Number.isSafeInteger(id) ? { ts, id } : null;
}
