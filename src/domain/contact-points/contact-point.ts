/**
 * @module Contact points (issue 17, docs/contact-points.md): named notification destinations that
 * hold the secrets (webhook URL and headers, Slack webhook URL) rules used to carry, declared once,
 * plus the `notificationChannels` entries that name them: `slack` (the default Slack contact point)
 * or `slack:oncall` (the Slack contact point named oncall). Plain data only (they cross threads).
 */
import { NOTIFICATION_CHANNELS, type NotificationChannel } from '../rules/rule-types.ts';
import { suggest } from '../suggest.ts';

export const MAX_CONTACT_POINT_NAME = 100;
/** Letters, digits, `_`, `.`, `-`; no `:` (the separator of a channel entry) and no space. */
export const CONTACT_POINT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
export const CONTACT_POINT_NAME_RULE = `1 to ${MAX_CONTACT_POINT_NAME} letters, digits, '_', '.' or '-', starting with a letter or digit`;

/** A contact point as stored: `settings` holds its secrets (never returned as such by the API). */
export interface ContactPoint {
  readonly id: number;
  readonly name: string;
  readonly type: NotificationChannel;
  /** At most one contact point per type is the default: the one a bare `slack` entry means. */
  readonly isDefault: boolean;
  /** The type's settings (ChannelConfigs), validated on write and again before each delivery. */
  readonly settings: Readonly<Record<string, unknown>>;
  /** ISO 8601 UTC. */
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** What a create or update stores (settings validated, secrets of an update already merged). */
export interface ContactPointFields {
  readonly name: string;
  readonly type: NotificationChannel;
  readonly isDefault: boolean;
  readonly settings: Readonly<Record<string, unknown>>;
}

/** One entry of a rule's notificationChannels, parsed: `name` null means the type's default. */
export interface ChannelRef {
  readonly type: NotificationChannel;
  readonly name: string | null;
}

const isType = (word: string): word is NotificationChannel =>
  (NOTIFICATION_CHANNELS as readonly string[]).includes(word);

/** `slack` -> { slack, null }; `slack:oncall` -> { slack, oncall }; anything else undefined. */
export function parseChannelRef(entry: string): ChannelRef | undefined {
  const colon = entry.indexOf(':');
  const type = colon < 0 ? entry : entry.slice(0, colon);
  if (!isType(type)) return undefined;
  if (colon < 0) return { type, name: null };
  const name = entry.slice(colon + 1);
  return CONTACT_POINT_NAME.test(name) ? { type, name } : undefined;
}

export const CHANNEL_ENTRY_RULE = `a channel type (${NOTIFICATION_CHANNELS.join(', ')}) for its default contact point, or <type>:<contact point name> (e.g. slack:oncall)`;

/** Why `entry` is not a channel entry, with a did-you-mean for a misspelt type; undefined: fine. */
export function channelEntryProblem(at: string, entry: unknown): string | undefined {
  if (typeof entry !== 'string') return `${at} must be a string: ${CHANNEL_ENTRY_RULE}`;
  if (parseChannelRef(entry) !== undefined) return undefined;
  const colon = entry.indexOf(':');
  const type = colon < 0 ? entry : entry.slice(0, colon);
  if (!isType(type)) {
    const guess = suggest(type, NOTIFICATION_CHANNELS);
    const hint =
      guess === null ? '' : ` Did you mean '${colon < 0 ? guess : guess + entry.slice(colon)}'?`;
    return `${at}: '${entry.slice(0, 120)}' is not ${CHANNEL_ENTRY_RULE}.${hint}`;
  }
  return `${at}: the contact point name after '${type}:' must be ${CONTACT_POINT_NAME_RULE}`;
}

/** The failed delivery's reason for an entry that no contact point answers (issue 17, exact text). */
export const noContactPoint = (ref: ChannelRef): string =>
  ref.name === null
    ? `no contact point for ${ref.type}`
    : `no contact point for ${ref.type} named ${ref.name}`;
