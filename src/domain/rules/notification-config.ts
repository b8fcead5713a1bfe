/**
 * @module notificationConfig (DESIGN 6): the keys each channel needs, checked against a rule's
 * notificationChannels on create and update, and again (same code) before a delivery. Pure.
 * Only the URL's syntax and scheme are checked here; the host allow-list is applied at delivery.
 */
import { NOTIFICATION_CHANNELS, type NotificationChannel } from './rule-types.ts';

/** `webhook`: the alert JSON is POSTed to `url`. */
export interface WebhookConfig {
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Per-attempt timeout; overrides NOTIFY_TIMEOUT_MS for this rule. */
  readonly timeoutMs?: number;
}

/** `slack`: a Slack incoming-webhook URL; `channel` overrides the webhook's default channel. */
export interface SlackConfig {
  readonly webhookUrl: string;
  readonly channel?: string;
}

/** `email`: one address or several; `subject` replaces `[Vigil <SEVERITY>] <rule name>`. */
export interface EmailConfig {
  readonly to: string | readonly string[];
  readonly subject?: string;
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

const ALLOWED_KEYS: { readonly [C in NotificationChannel]: readonly string[] } = {
  webhook: ['url', 'headers', 'timeoutMs'],
  slack: ['webhookUrl', 'channel'],
  email: ['to', 'subject'],
};
const REQUIRED_KEY: { readonly [C in NotificationChannel]: string } = {
  webhook: 'url',
  slack: 'webhookUrl',
  email: 'to',
};

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isChannel = (key: string): key is NotificationChannel =>
  (NOTIFICATION_CHANNELS as readonly string[]).includes(key);

const shape = (channel: NotificationChannel): string =>
  `{ ${ALLOWED_KEYS[channel].map((k) => (k === REQUIRED_KEY[channel] ? k : `${k}?`)).join(', ')} }`;

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

/**
 * Checks one channel's section. `listed`: the rule's notificationChannels include the channel (the
 * missing-key message then says so). Error keys are field paths under `path`.
 */
function sectionErrors(
  channel: NotificationChannel,
  section: unknown,
  path: string,
  listed: boolean,
): Record<string, string> {
  const errors: Record<string, string> = {};
  const at = `${path}.${channel}`;
  const required = `${at}.${REQUIRED_KEY[channel]}`;
  const missing = listed
    ? `${required} is required when notificationChannels includes ${channel}`
    : `${required} is required`;
  if (section === undefined || section === null) {
    errors[required] = missing;
    return errors;
  }
  if (!isObject(section)) {
    errors[at] = `${at} must be an object ${shape(channel)}`;
    return errors;
  }
  const allowed = ALLOWED_KEYS[channel];
  for (const key of Object.keys(section)) {
    if (!allowed.includes(key)) {
      errors[`${at}.${key}`] = `Unknown key '${key}' in ${at} (allowed: ${allowed.join(', ')})`;
    }
  }
  if (section[REQUIRED_KEY[channel]] === undefined) errors[required] = missing;
  valueProblems(channel, at, section, errors);
  return errors;
}

/**
 * The problems of a notificationConfig for the given channels, keyed by field path (empty: valid).
 * Every listed channel needs its section; a section present for a channel that is not listed is
 * checked too (it takes effect once the channel is added); any other top-level key is refused.
 * `config` null or absent means no sections.
 */
export function notificationConfigErrors(
  channels: readonly NotificationChannel[],
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
    const listed = channels.includes(channel);
    if (listed || sections[channel] !== undefined) {
      errors = { ...errors, ...sectionErrors(channel, sections[channel], path, listed) };
    }
  }
  return errors;
}

/** One channel's section of a stored notificationConfig, checked as on create; for delivery. */
export function channelConfig<C extends NotificationChannel>(
  channel: C,
  config: unknown,
): ChannelConfigCheck<C> {
  if (config !== undefined && config !== null && !isObject(config)) {
    return { ok: false, errors: { notificationConfig: 'notificationConfig must be an object' } };
  }
  const section = config?.[channel];
  const errors = sectionErrors(channel, section, 'notificationConfig', true);
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, value: section as ChannelConfigs[C] };
}
