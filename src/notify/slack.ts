/**
 * @module The Slack channel: builds an incoming-webhook message (`text` fallback plus Block Kit
 * `blocks`) from the alert and POSTs it (front thread; retries per NotifyOptions; never throws).
 */
import type { SlackConfig } from '../domain/rules/alerts/notification-config.ts';
import type { AlertPayload, DeliveryResult } from '../domain/rules/alerts/alert.ts';
import {
  digestEntryText,
  durationText,
  type DigestNotification,
  type IncidentNotification,
  type Notification,
} from '../domain/rules/alerts/notification.ts';
import { postJson } from './http-post.ts';
import type { NotifyOptions } from './notify-options.ts';

interface PlainText {
  readonly type: 'plain_text';
  readonly text: string;
}
interface Mrkdwn {
  readonly type: 'mrkdwn';
  readonly text: string;
}
export type SlackBlock =
  | { readonly type: 'header'; readonly text: PlainText }
  | { readonly type: 'section'; readonly text?: Mrkdwn; readonly fields?: readonly Mrkdwn[] }
  | { readonly type: 'context'; readonly elements: readonly Mrkdwn[] };

export interface SlackMessage {
  /** The notification text, and what clients without blocks show. */
  readonly text: string;
  readonly blocks: readonly SlackBlock[];
  readonly channel?: string;
}

/** Slack's limits: header text 150 characters, section text 3000. */
const HEADER_MAX = 150;
const SECTION_MAX = 3000;
/** Lines shown per list; the rest is counted. */
const LIST_MAX = 20;

const truncate = (text: string, max: number): string =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

/** Rule names and metric keys are user text: escaped, they cannot mention `<!channel>` or link. */
const escape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function bulletList(title: string, lines: readonly string[]): Mrkdwn {
  const shown = lines.slice(0, LIST_MAX).map((line) => `• ${escape(line)}`);
  if (lines.length > LIST_MAX) shown.push(`… and ${lines.length - LIST_MAX} more`);
  const body = shown.length === 0 ? '_none_' : shown.join('\n');
  return { type: 'mrkdwn', text: truncate(`*${title}*\n${body}`, SECTION_MAX) };
}

const header = (text: string): SlackBlock => ({
  type: 'header',
  text: { type: 'plain_text', text: truncate(text, HEADER_MAX) },
});
const context = (text: string): SlackBlock => ({
  type: 'context',
  elements: [{ type: 'mrkdwn', text }],
});
const withChannel = (message: Omit<SlackMessage, 'channel'>, config: SlackConfig): SlackMessage =>
  config.channel === undefined ? message : { ...message, channel: config.channel };

/** An incident resolved: how long it lasted, why, and the values at recovery. */
function resolvedMessage(alert: IncidentNotification, config: SlackConfig): SlackMessage {
  const lasted = durationText(alert.durationSeconds ?? 0);
  const recovered = Object.entries(alert.valuesAtResolve ?? {}).map(
    ([metric, value]) => `${metric}: ${value}`,
  );
  return withChannel(
    {
      text: truncate(`[RESOLVED] ${escape(alert.ruleName)} after ${lasted}`, SECTION_MAX),
      blocks: [
        header(`RESOLVED: ${alert.ruleName}`),
        {
          type: 'section',
          fields: [
            { type: 'mrkdwn', text: `*Severity*\n${alert.severity}` },
            { type: 'mrkdwn', text: `*Lasted*\n${lasted}` },
            { type: 'mrkdwn', text: `*Fired at*\n${alert.firedAt}` },
            { type: 'mrkdwn', text: `*Resolved at*\n${alert.resolvedAt ?? ''}` },
          ],
        },
        {
          type: 'section',
          text: { type: 'mrkdwn', text: truncate(escape(alert.message), SECTION_MAX) },
        },
        { type: 'section', text: bulletList('Values at recovery', recovered) },
        context(`Vigil alert #${alert.alertId} · ${alert.transitionId}`),
      ],
    },
    config,
  );
}

/** The incidents a rule's budget held back, counted, the first listed. */
function digestMessage(digest: DigestNotification, config: SlackConfig): SlackMessage {
  return withChannel(
    {
      text: truncate(
        `[DIGEST] ${escape(digest.ruleName)}: ${digest.heldBack} held back`,
        SECTION_MAX,
      ),
      blocks: [
        header(`DIGEST: ${digest.ruleName}`),
        {
          type: 'section',
          text: { type: 'mrkdwn', text: truncate(escape(digest.message), SECTION_MAX) },
        },
        { type: 'section', text: bulletList('Held back', digest.alerts.map(digestEntryText)) },
        context(
          `Vigil digest #${digest.digestId} · rule #${digest.ruleId} · ${digest.transitionId}`,
        ),
      ],
    },
    config,
  );
}

/** The Slack message of a notification: the alert that fired, resolved, or a digest. */
export function slackMessage(notification: Notification, config: SlackConfig): SlackMessage {
  switch (notification.transition) {
    case 'FIRING':
      return firingMessage(notification, config);
    case 'RESOLVED':
      return resolvedMessage(notification, config);
    case 'DIGEST':
      return digestMessage(notification, config);
  }
}

function firingMessage(alert: AlertPayload, config: SlackConfig): SlackMessage {
  const conditions = alert.matchedConditions.join(', ');
  const text = truncate(
    `[${alert.severity}] ${escape(alert.ruleName)}${conditions === '' ? '' : `: ${escape(conditions)}`}`,
    SECTION_MAX,
  );
  const values = Object.entries(alert.currentValues).map(
    ([metric, value]) => `${metric}: ${value}`,
  );
  const blocks: SlackBlock[] = [
    {
      type: 'header',
      text: {
        type: 'plain_text',
        text: truncate(`${alert.severity}: ${alert.ruleName}`, HEADER_MAX),
      },
    },
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: `*Severity*\n${alert.severity}` },
        { type: 'mrkdwn', text: `*Triggered at*\n${alert.triggeredAt}` },
      ],
    },
    { type: 'section', text: bulletList('Matched conditions', alert.matchedConditions) },
    ...(alert.explanationText === ''
      ? []
      : [
          {
            type: 'section' as const,
            text: {
              type: 'mrkdwn' as const,
              text: truncate(`*Why*\n${escape(alert.explanationText)}`, SECTION_MAX),
            },
          },
        ]),
    { type: 'section', text: bulletList('Current values', values) },
  ];
  if (alert.message !== '') {
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: truncate(escape(alert.message), SECTION_MAX) },
    });
  }
  blocks.push({
    type: 'context',
    elements: [
      {
        type: 'mrkdwn',
        text: `Vigil alert #${alert.id} · rule #${alert.ruleId} version ${alert.ruleVersion}`,
      },
    ],
  });
  return { text, blocks, ...(config.channel === undefined ? {} : { channel: config.channel }) };
}

export const sendSlack = (
  alert: Notification,
  config: SlackConfig,
  options: NotifyOptions,
): Promise<DeliveryResult> =>
  postJson(
    {
      channel: 'slack',
      url: config.webhookUrl,
      body: slackMessage(alert, config),
      timeoutMs: options.timeoutMs,
    },
    options,
  );
