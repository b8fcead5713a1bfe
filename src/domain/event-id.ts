/**
 * @module eventId <-> table id: `evt_<id>`, derived from the bigserial key rather than stored.
 */
const EVENT_ID = /^evt_([1-9][0-9]{0,15})$/;

export const eventIdOf = (id: number): string => `evt_${id}`;

/** The table id of an eventId, or null when it is not of the form evt_<digits> (a 404). */
export function idOfEventId(eventId: string): number | null {
  const match = EVENT_ID.exec(eventId);
  if (match === null) return null;
  const id = Number(match[1]);
  return Number.isSafeInteger(id) ? id : null;
}
