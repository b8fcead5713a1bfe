/**
 * @module ISO 8601 instants with a zone (DESIGN 2): parsed to epoch ms, or null when the text is
 * not a real instant (no zone, day 30 of February, hour 25 ...).
 */
const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|z|[+-]\d{2}:?\d{2})$/;

/** Days in a month (1-12) of the proleptic Gregorian calendar, as Date reckons. */
const daysInMonth = (year: number, month: number): number =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : month === 4 || month === 6 || month === 9 || month === 11
      ? 30
      : 31;

/** A matched field as a number; an absent optional one (seconds) is 0. */
const field = (m: RegExpExecArray, i: number): number => {
  const text = m[i];
  return text === undefined ? 0 : Number(text);
};

// Every ingest request with a timestamp passes here: fields are read one by one and the day is
// checked by the calendar, not by a second Date (no array or Date per request beyond one).
export function parseInstant(text: string): number | null {
  const m = INSTANT.exec(text);
  if (m === null) return null;
  const year = field(m, 1);
  const month = field(m, 2);
  const day = field(m, 3);
  const hour = field(m, 4);
  const minute = field(m, 5);
  const second = field(m, 6);
  const fraction = m[7] ?? '';
  const zone = m[8] as string;
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  if (day < 1 || day > daysInMonth(year, month)) return null;
  // setUTCFullYear, unlike Date.UTC, keeps years 0-99 as written.
  const dayStart = new Date(0).setUTCFullYear(year, month - 1, day);
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
