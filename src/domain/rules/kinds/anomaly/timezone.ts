/**
 * @module Local wall-clock time of an instant in an IANA timezone, for seasonal baselines: a slot is
 * the bucket's place in the local day or week, so 09:00 stays 09:00 across DST changes (a spring
 * day has one hour fewer, an autumn one repeats an hour into the same slots).
 */
import { suggest } from '../../../suggest.ts';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      weekday: 'short',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(timezone, formatter);
  }
  return formatter;
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** Why `value` is no timezone, with a did-you-mean; null when it is one. */
export function timezoneProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') {
    return `Invalid timezone ${JSON.stringify(value) ?? String(value)}: must be an IANA zone name such as Europe/Paris or UTC`;
  }
  try {
    formatterOf(value);
    return null;
  } catch {
    const close = suggest(value, Intl.supportedValuesOf('timeZone'));
    return close === null
      ? `Invalid timezone '${value}': must be an IANA zone name such as Europe/Paris or UTC`
      : `Invalid timezone '${value}'. Did you mean '${close}'?`;
  }
}

/** Minutes since local Monday 00:00 of `epochMs` in `timezone` (0 .. 10079). */
export function minuteOfLocalWeek(epochMs: number, timezone: string): number {
  let day = 0;
  let hour = 0;
  let minute = 0;
  for (const part of formatterOf(timezone).formatToParts(epochMs)) {
    if (part.type === 'weekday') day = WEEKDAYS.indexOf(part.value);
    else if (part.type === 'hour') hour = Number(part.value);
    else if (part.type === 'minute') minute = Number(part.value);
  }
  return day * 1440 + hour * 60 + minute;
}

/**
 * Local minute-of-week per instant, remembering the zone's offset for the last UTC hour asked: a
 * series' buckets arrive in order, so at most one formatting per hour (offsets change on hours).
 */
export class LocalClock {
  private hour = Number.NaN;
  private hourStart = 0;

  constructor(readonly timezone: string) {}

  minuteOfWeek(epochMs: number): number {
    const hour = Math.floor(epochMs / 3_600_000);
    if (hour !== this.hour) {
      this.hour = hour;
      this.hourStart = minuteOfLocalWeek(hour * 3_600_000, this.timezone);
    }
    // Zones with a 30 or 45 minute offset still move in whole UTC hours between changes.
    const minutes = Math.floor((epochMs - hour * 3_600_000) / 60_000);
    return (this.hourStart + minutes) % 10_080;
  }
}
