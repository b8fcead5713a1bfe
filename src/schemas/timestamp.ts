/**
 * @module ISO 8601 instants with a zone (DESIGN 2): parsed to epoch ms, or null when the text is
 * not a real instant (no zone, day 30 of February, hour 25 ...).
 */
const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|z|[+-]\d{2}:?\d{2})$/;

export function parseInstant(text: string): number | null {
  const m = INSTANT.exec(text);
  if (m === null) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((s) => Number(s ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fraction = m[7] ?? '';
  const zone = m[8] as string;
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  // setUTCFullYear, unlike Date.UTC, keeps years 0-99 as written.
  const dayStart = new Date(0).setUTCFullYear(year, month - 1, day);
  if (day < 1 || new Date(dayStart).getUTCDate() !== day) return null;
  let offsetMinutes = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const digits = zone.replace(':', '');
    const h = Number(digits.slice(1, 3));
    const mm = Number(digits.slice(3, 5));
    if (h > 23 || mm > 59) return null;
    offsetMinutes = (digits[0] === '-' ? -1 : 1) * (h * 60 + mm);
  }
  // Millisecond precision (DESIGN 2): digits past the third are dropped.
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  const epoch = dayStart + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + ms;
  return Number.isFinite(epoch) && Math.abs(epoch) <= 8.64e15 ? epoch : null;
}
