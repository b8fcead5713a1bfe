/**
 * @module Notification settings (DESIGN 6, issue 17): what a contact point of each channel type
 * holds (destination, secrets, defaults), checked on create and update and again (same code)
 * before a delivery; and what a rule's notificationConfig may add per type (non-secret settings
 * only), merged over its contact point's at delivery. Pure. Only a URL's syntax and scheme are
 * checked here; the address policy is applied at delivery (src/notify/resolve-target.ts).
 */
import { templateProblem } from './template.ts';
import { NOTIFICATION_CHANNELS, type NotificationChannel } from './channels.ts';

/** `webhook`: the alert JSON is POSTed to `url`. */
export interface WebhookConfig extends MessageTemplate {
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Per-attempt timeout; overrides NOTIFY_TIMEOUT_MS for this rule. */
  readonly timeoutMs?: number;
}

/** `slack`: a Slack incoming-webhook URL; `channel` overrides the webhook's default channel. */
export interface SlackConfig extends MessageTemplate {
  readonly webhookUrl: string;
  readonly channel?: string;
}

/** `email`: one address or several; `subject` replaces `[Vigil <SEVERITY>] <rule name>`. */
export interface EmailConfig extends MessageTemplate {
  readonly to: string | readonly string[];
  readonly subject?: string;
}

/** Every channel: replaces the alert's `message` in what is sent (template.ts). */
export interface MessageTemplate {
  readonly template?: string;
}

export interface ChannelConfigs {
  readonly webhook: WebhookConfig;
  readonly slack: SlackConfig;
  readonly email: EmailConfig;
}

export type NotificationConfig = { readonly [C in NotificationChannel]?: ChannelConfigs[C] };

export type ChannelConfigCheck<C extends NotificationChannel> =
  | { readonly ok: true; readonly value: ChannelConfigs[C] }
  | { readonly ok: false; readonly errors: Readonly<Record<string, string>> };

export const WEBHOOK_TIMEOUT_MS = { min: 100, max: 60_000 } as const;
export const MAX_URL_LENGTH = 2048;
export const MAX_EMAIL_RECIPIENTS = 50;
const MAX_SUBJECT_LENGTH = 255;
const MAX_SLACK_CHANNEL_LENGTH = 255;
const MAX_HEADER_VALUE_LENGTH = 8192;
/** Headers of one webhook: few, so that a rule (and a list of 10,000 of them) stays small. */
export const MAX_HEADERS = 20;

/** RFC 9110 token: what a header name may be. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Set by Vigil or by the HTTP client (framing, hop-by-hop): a rule must not override them. */
const RESERVED_HEADERS = new Set([
  'content-type',
  'content-length',
  'transfer-encoding',
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);
/** A plain address, `local@domain`: no display name, list separator, quote or control character. */
const EMAIL_ADDRESS = /^[^\s@<>,;:"()[\]\\]+@[^\s@<>,;:"()[\]\\]+$/;
// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
const CONTROL = /[\u0000-\u001f\u007f]/;
/** Header values travel as bytes: a character above U+00FF cannot be sent. */
const NOT_LATIN1 = /[^\t\u0020-\u00ff]/;

/** What a contact point of each type holds: the destination, its secrets, its defaults. */
const SETTINGS_KEYS: { readonly [C in NotificationChannel]: readonly string[] } = {
  webhook: ['url', 'headers', 'timeoutMs', 'template'],
  slack: ['webhookUrl', 'channel', 'template'],
  email: ['to', 'subject', 'template'],
};
const REQUIRED_KEY: { readonly [C in NotificationChannel]: string } = {
  webhook: 'url',
  slack: 'webhookUrl',
  email: 'to',
};
/** Secrets: write-only in a contact point (reads show them redacted), never in a rule. */
export const SECRET_KEYS: { readonly [C in NotificationChannel]: readonly string[] } = {
  webhook: ['url', 'headers'],
  slack: ['webhookUrl'],
  email: [],
};
/**
 * What a rule's notificationConfig may set per type: non-secret settings merged over its contact
 * point's (mergeChannelSettings). Email `to` there adds recipients to the contact point's.
 */
const RULE_KEYS: { readonly [C in NotificationChannel]: readonly string[] } = {
  webhook: ['timeoutMs', 'template'],
  slack: ['channel', 'template'],
  email: ['to', 'subject', 'template'],
};

/** Which keys a section may hold, which one it must, and which are refused with their own text. */
interface SectionSpec {
  readonly allowed: readonly string[];
  readonly required?: string;
  readonly refused?: (at: string, key: string) => string | undefined;
}

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isChannel = (key: string): key is NotificationChannel =>
  (NOTIFICATION_CHANNELS as readonly string[]).includes(key);

const shape = (spec: SectionSpec): string =>
  `{ ${spec.allowed.map((k) => (k === spec.required ? k : `${k}?`)).join(', ')} }`;

/** An absolute http(s) URL without credentials (fetch refuses those), else the problem. */
function urlProblem(path: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return `${path} must be a string (an http or https URL)`;
  if (value.length > MAX_URL_LENGTH) return `${path} must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${path} must be an absolute http or https URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `${path} must use http or https, not '${url.protocol.slice(0, -1)}'`;
  }
  if (url.username !== '' || url.password !== '') {
    return `${path} must not contain a user name or password`;
  }
  return undefined;
}

function headerProblems(path: string, value: unknown, errors: Record<string, string>): void {
  if (!isObject(value)) {
    errors[path] = `${path} must be an object mapping header names to string values`;
    return;
  }
  const entries = Object.entries(value);
  if (entries.length > MAX_HEADERS) {
    errors[path] = `${path} must hold at most ${MAX_HEADERS} headers`;
    return;
  }
  for (const [name, headerValue] of entries) {
    const at = `${path}.${name}`;
    if (!HEADER_NAME.test(name)) errors[at] = `${at}: '${name}' is not a valid header name`;
    else if (RESERVED_HEADERS.has(name.toLowerCase())) {
      errors[at] = `${at} cannot be set: Vigil or the HTTP client sets it`;
    } else if (typeof headerValue !== 'string') errors[at] = `${at} must be a string`;
    else if (CONTROL.test(headerValue.replace(/\t/g, ' '))) {
      errors[at] = `${at} must not contain line breaks or control characters`;
    } else if (NOT_LATIN1.test(headerValue)) {
      errors[at] = `${at} must hold only Latin-1 characters (HTTP header values are bytes)`;
    } else if (headerValue.length > MAX_HEADER_VALUE_LENGTH) {
      errors[at] = `${at} must be at most ${MAX_HEADER_VALUE_LENGTH} characters`;
    }
  }
}

function textProblem(path: string, value: unknown, max: number): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    return `${path} must be a string of 1 to ${max} characters`;
  }
  if (CONTROL.test(value)) return `${path} must not contain line breaks or control characters`;
  return undefined;
}

function recipientProblems(path: string, value: unknown, errors: Record<string, string>): void {
  const addressProblem = (at: string, address: unknown): void => {
    if (typeof address !== 'string' || address.length > 254 || !EMAIL_ADDRESS.test(address)) {
      errors[at] = `${at} must be an e-mail address like ops@example.com`;
    }
  };
  if (typeof value === 'string') addressProblem(path, value);
  else if (Array.isArray(value) && value.length >= 1 && value.length <= MAX_EMAIL_RECIPIENTS) {
    value.forEach((address: unknown, i) => addressProblem(`${path}.${i}`, address));
  } else {
    errors[path] =
      `${path} must be an e-mail address or an array of 1 to ${MAX_EMAIL_RECIPIENTS} addresses`;
  }
}

/** The values present in one channel's section (a missing required key is reported apart). */
function valueProblems(
  channel: NotificationChannel,
  path: string,
  section: Readonly<Record<string, unknown>>,
  errors: Record<string, string>,
): void {
  const check = (key: string, problem: (at: string, value: unknown) => string | undefined) => {
    const value = section[key];
    if (value === undefined) return;
    const message = problem(`${path}.${key}`, value);
    if (message !== undefined) errors[`${path}.${key}`] = message;
  };
  check('template', templateProblem);
  switch (channel) {
    case 'webhook':
      check('url', urlProblem);
      check('headers', (at, value) => {
        headerProblems(at, value, errors);
        return undefined;
      });
      check('timeoutMs', (at, value) =>
        typeof value === 'number' &&
        Number.isInteger(value) &&
        value >= WEBHOOK_TIMEOUT_MS.min &&
        value <= WEBHOOK_TIMEOUT_MS.max
          ? undefined
          : `${at} must be an integer from ${WEBHOOK_TIMEOUT_MS.min} to ${WEBHOOK_TIMEOUT_MS.max}`,
      );
      return;
    case 'slack':
      check('webhookUrl', urlProblem);
      check('channel', (at, value) => textProblem(at, value, MAX_SLACK_CHANNEL_LENGTH));
      return;
    case 'email':
      check('to', (at, value) => {
        recipientProblems(at, value, errors);
        return undefined;
      });
      check('subject', (at, value) => textProblem(at, value, MAX_SUBJECT_LENGTH));
      return;
  }
}

/** Checks one channel's section against `spec`. Error keys are field paths under `at`. */
function sectionErrors(
  channel: NotificationChannel,
  section: unknown,
  at: string,
  spec: SectionSpec,
): Record<string, string> {
  const errors: Record<string, string> = {};
  const required = spec.required === undefined ? undefined : `${at}.${spec.required}`;
  if (section === undefined || section === null) {
    if (required !== undefined) errors[required] = `${required} is required`;
    return errors;
  }
  if (!isObject(section)) {
    errors[at] = `${at} must be an object ${shape(spec)}`;
    return errors;
  }
  for (const key of Object.keys(section)) {
    if (spec.allowed.includes(key)) continue;
    errors[`${at}.${key}`] =
      spec.refused?.(at, key) ??
      `Unknown key '${key}' in ${at} (allowed: ${spec.allowed.join(', ')})`;
  }
  if (
    required !== undefined &&
    spec.required !== undefined &&
    section[spec.required] === undefined
  ) {
    errors[required] = `${required} is required`;
  }
  valueProblems(channel, at, section, errors);
  return errors;
}

const settingsSpec = (type: NotificationChannel): SectionSpec => ({
  allowed: SETTINGS_KEYS[type],
  required: REQUIRED_KEY[type],
});

/** The problems of a contact point's settings for its type, keyed by field path (empty: valid). */
export function contactPointSettingsErrors(
  type: NotificationChannel,
  settings: unknown,
  path = 'settings',
): Record<string, string> {
  return sectionErrors(type, settings, path, settingsSpec(type));
}

const ruleSpec = (channel: NotificationChannel): SectionSpec => ({
  allowed: RULE_KEYS[channel],
  refused: (at, key) =>
    SECRET_KEYS[channel].includes(key) || SETTINGS_KEYS[channel].includes(key)
      ? `${at}.${key} cannot be set in a rule: it belongs to a contact point (secrets never go in ` +
        `a rule). Create one with POST /api/v1/contact-points { "type": "${channel}", "settings": ` +
        `{ "${key}": … } } and name it in notificationChannels as ${channel} (the default) or ` +
        `${channel}:<name>`
      : undefined,
});

/**
 * The problems of a rule's notificationConfig, keyed by field path (empty: valid). It holds, per
 * channel type, only non-secret settings (RULE_KEYS), all optional: the destination and its
 * secrets are a contact point's; a secret key is refused with a message that says so. A section
 * may be present whether or not the rule lists that channel. `config` null or absent: none.
 */
export function notificationConfigErrors(
  config: unknown,
  path = 'notificationConfig',
): Record<string, string> {
  if (config !== undefined && config !== null && !isObject(config)) {
    return { [path]: `${path} must be an object or null` };
  }
  const sections = config ?? {};
  let errors: Record<string, string> = {};
  for (const key of Object.keys(sections)) {
    if (!isChannel(key)) {
      errors[`${path}.${key}`] =
        `Unknown channel '${key}' in ${path} (allowed: ${NOTIFICATION_CHANNELS.join(', ')})`;
    }
  }
  for (const channel of NOTIFICATION_CHANNELS) {
    if (sections[channel] !== undefined) {
      const at = `${path}.${channel}`;
      errors = { ...errors, ...sectionErrors(channel, sections[channel], at, ruleSpec(channel)) };
    }
  }
  return errors;
}

const recipients = (to: unknown): readonly unknown[] =>
  to === undefined ? [] : Array.isArray(to) ? to : [to];

/**
 * A contact point's settings with a rule's section of notificationConfig merged over them: the
 * rule's keys replace the contact point's, except email `to`, whose addresses are added (each
 * once). The result is checked again by channelConfig before anything is sent.
 */
export function mergeChannelSettings(
  type: NotificationChannel,
  settings: Readonly<Record<string, unknown>>,
  ruleConfig: unknown,
): Readonly<Record<string, unknown>> {
  const section = isObject(ruleConfig) ? ruleConfig[type] : undefined;
  if (!isObject(section)) return settings;
  const overrides = Object.fromEntries(
    Object.entries(section).filter(([key]) => RULE_KEYS[type].includes(key)),
  );
  const merged: Record<string, unknown> = { ...settings, ...overrides };
  if (type === 'email' && section['to'] !== undefined) {
    merged['to'] = [...new Set([...recipients(settings['to']), ...recipients(section['to'])])];
  }
  return merged;
}

/** One contact point's settings (merged with the rule's), checked as on create; for delivery. */
export function channelConfig<C extends NotificationChannel>(
  channel: C,
  settings: unknown,
): ChannelConfigCheck<C> {
  const errors = contactPointSettingsErrors(channel, settings);
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, value: settings as ChannelConfigs[C] };
}
