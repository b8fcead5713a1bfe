// parseInstant against the reference it replaced (one Date per field check, issue 35): the same
// epoch or the same refusal for every day of every month of leap and common years, centuries
// included, and for hours, minutes, seconds, fractions and zones at and past their bounds.
import t from 'tap';
import { parseInstant } from '../../src/schemas/timestamp.ts';

const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|z|[+-]\d{2}:?\d{2})$/;

/** The implementation before issue 35, kept here as the reference. */
function reference(text: string): number | null {
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
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  const epoch = dayStart + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + ms;
  return Number.isFinite(epoch) && Math.abs(epoch) <= 8.64e15 ? epoch : null;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

void t.test('every date of leap, common and century years: as the reference', async (t) => {
  let compared = 0;
  let differ = 0;
  for (const year of [0, 1, 4, 99, 100, 400, 1600, 1900, 1970, 2000, 2023, 2024, 2100, 9999]) {
    for (let month = 0; month <= 13; month++) {
      for (let day = 0; day <= 32; day++) {
        const text = `${pad(year, 4)}-${pad(month)}-${pad(day)}T12:34:56.789Z`;
        compared++;
        if (parseInstant(text) !== reference(text)) {
          differ++;
          t.fail(text);
        }
      }
    }
  }
  t.equal(differ, 0, `${compared} dates compared`);
  t.equal(parseInstant('2024-02-29T00:00:00Z'), Date.UTC(2024, 1, 29));
  t.equal(parseInstant('2023-02-29T00:00:00Z'), null);
  t.equal(parseInstant('1900-02-29T00:00:00Z'), null);
});

void t.test('times, fractions and zones at and past their bounds: as the reference', async (t) => {
  const texts = [
    '2026-11-22T19:30:00.123Z',
    '2026-11-22T19:30Z',
    '2026-11-22T19:30:00.999999999z',
    '2026-11-22T23:59:59+23:59',
    '2026-11-22T00:00:00-2359',
    '2026-11-22T24:00:00Z',
    '2026-11-22T23:60:00Z',
    '2026-11-22T23:59:60Z',
    '2026-11-22T19:30:00+24:00',
    '2026-11-22T19:30:00+05:60',
    '0000-01-01T00:00:00+01:00',
    '9999-12-31T23:59:59.999-23:59',
    '2026-11-22T19:30:00',
    '2026-11-22 19:30:00Z',
  ];
  for (const text of texts) t.equal(parseInstant(text), reference(text), text);
});
