/**
 * @module How a PUT changes a contact point's settings (docs/contact-points.md): key by key over the
 * stored ones, so that a client that read the redacted form and sends it back keeps its secrets.
 * - a key left out keeps its stored value; `null` removes an optional key;
 * - a secret sent as the redacted form of the stored one (what GET showed) keeps the stored one;
 * - `headers`, when given, is the new set of headers; a header whose value is `****` keeps the
 *   stored value of that header (and is refused, as any redacted form left over, if there is none).
 */
import { SECRET_KEYS } from '../rules/notification-config.ts';
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
