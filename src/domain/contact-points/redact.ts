/**
 * @module What a read of a contact point shows of its secrets (issues 17, 29): a URL its scheme and
 * host only (`https://hooks.slack.com/****`), every header value `****`; e-mail addresses, Slack channel, subject and timeout are shown.
 * The same forms, sent back in an update, mean "keep the stored secret" (settings-update.ts).
 */
import { SECRET_KEYS } from '../rules/alerts/notification-config.ts';
import type { ContactPoint } from './contact-point.ts';

export const HIDDEN = '****';

/**
 * `scheme://host[:port]/****`: nothing of the path, the query nor the fragment, which may be the
 * secret itself (Slack's `/services/T…/B…/…`, a token in a path segment). Not a URL: `****`.
 */
export function redactUrl(value: unknown): string {
  if (typeof value !== 'string') return HIDDEN;
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}/${HIDDEN}`;
  } catch {
    return HIDDEN;
  }
}

const redactHeaders = (headers: unknown): Record<string, string> =>
  typeof headers === 'object' && headers !== null
    ? Object.fromEntries(Object.keys(headers).map((name) => [name, HIDDEN]))
    : {};

/** A secret's redacted form: headers map each name to `****`, URLs as redactUrl. */
export const redactSecret = (key: string, value: unknown): unknown =>
  key === 'headers' ? redactHeaders(value) : redactUrl(value);

/**
 * The paths of `settings` that hold a redacted form instead of a secret (a URL ending in `/****`,
 * a header value `****`): what a read showed, sent where no stored secret answers it.
 */
export function redactedPaths(
  type: ContactPoint['type'],
  settings: Readonly<Record<string, unknown>>,
  path = 'settings',
): string[] {
  const found: string[] = [];
  for (const key of SECRET_KEYS[type]) {
    const value = settings[key];
    if (key === 'headers' && typeof value === 'object' && value !== null) {
      for (const [name, v] of Object.entries(value)) {
        if (v === HIDDEN) found.push(`${path}.${key}.${name}`);
      }
    } else if (typeof value === 'string' && (value === HIDDEN || value.endsWith(`/${HIDDEN}`))) {
      found.push(`${path}.${key}`);
    }
  }
  return found;
}

/** The settings as every read shows them: each secret (SECRET_KEYS) replaced by its redacted form. */
export function redactSettings(
  type: ContactPoint['type'],
  settings: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const shown: Record<string, unknown> = { ...settings };
  for (const key of SECRET_KEYS[type]) {
    if (key in shown) shown[key] = redactSecret(key, shown[key]);
  }
  return shown;
}

/** A contact point as the API returns it: never a secret. */
export type ContactPointView = Omit<ContactPoint, 'settings'> & {
  readonly settings: Readonly<Record<string, unknown>>;
};

export const contactPointView = (point: ContactPoint): ContactPointView => ({
  ...point,
  settings: redactSettings(point.type, point.settings),
});
