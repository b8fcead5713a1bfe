/**
 * @module How a PUT changes a contact point's settings (docs/contact-points.md): key by key over the
 * stored ones, so that a client that read the redacted form and sends it back keeps its secrets.
 * - a key left out keeps its stored value; `null` removes an optional key;
 * - a secret sent as the redacted form of the stored one (what GET showed) keeps the stored one;
 * - `headers`, when given, is the new set of headers; a header whose value is `****` keeps the
 *   stored value of that header (and is refused, as any redacted form left over, if there is none).
 */
import { SECRET_KEYS } from '../rules/alerts/notification-config.ts';
import type { NotificationChannel } from '../rules/rule-types.ts';
import { HIDDEN, redactSecret } from './redact.ts';

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function mergeHeaders(stored: unknown, given: unknown): unknown {
  if (!isObject(given)) return given;
  const before = isObject(stored) ? stored : {};
  return Object.fromEntries(
    Object.entries(given).map(([name, value]) => [
      name,
      value === HIDDEN && typeof before[name] === 'string' ? before[name] : value,
    ]),
  );
}

/** The settings to validate and store; `given` not an object is returned as is (validation says so). */
export function mergeSettingsUpdate(
  type: NotificationChannel,
  stored: Readonly<Record<string, unknown>>,
  given: unknown,
): unknown {
  if (!isObject(given)) return given;
  const next: Record<string, unknown> = { ...stored };
  for (const [key, value] of Object.entries(given)) {
    if (value === null) {
      delete next[key];
    } else if (!SECRET_KEYS[type].includes(key)) {
      next[key] = value;
    } else if (key === 'headers') {
      next[key] = mergeHeaders(stored[key], value);
    } else if (!(key in stored) || value !== redactSecret(key, stored[key])) {
      next[key] = value;
    }
  }
  return next;
}

/** scheme://host:port of a URL; null when it is not one (validation says so). */
function originOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    return new URL(value).origin;
  } catch {
    return null;
  }
}

/**
 * Header secrets stay with their destination (issue 29): a PUT that moves a URL to another origin
 * (scheme, host, port) must give the stored headers again, or drop them (`headers: null` or
 * `{}`); kept as they are, they would go to a host they were never meant for. The errors by
 * field, none when the update may proceed.
 */
export function secretsLeftBehind(
  type: NotificationChannel,
  stored: Readonly<Record<string, unknown>>,
  given: unknown,
): Record<string, string> {
  const secrets = SECRET_KEYS[type];
  const storedHeaders = stored.headers;
  if (!secrets.includes('headers') || !isObject(given) || !isObject(storedHeaders)) return {};
  if (Object.keys(storedHeaders).length === 0) return {};
  const moved = secrets.find((key) => {
    if (key === 'headers' || !(key in given) || given[key] === redactSecret(key, stored[key])) {
      return false;
    }
    const [before, after] = [originOf(stored[key]), originOf(given[key])];
    return before !== null && after !== null && before !== after;
  });
  if (moved === undefined) return {};
  const why =
    `settings.${moved} moves to another origin (scheme, host, port), and the stored header ` +
    'values were given for the old one';
  const headers = given.headers;
  if (headers === undefined) {
    return { 'settings.headers': `${why}: give settings.headers again, or null to drop them` };
  }
  if (!isObject(headers)) return {};
  const errors: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === HIDDEN && name in storedHeaders) {
      errors[`settings.headers.${name}`] = `${why}: give this header's value again`;
    }
  }
  return errors;
}
