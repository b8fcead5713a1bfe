/**
 * @module The Slack channel: builds an incoming-webhook message (`text` fallback plus Block Kit
 * `blocks`) from the alert and POSTs it (front thread; retries per NotifyOptions; never throws).
 */
import type { SlackConfig } from '../domain/rules/notification-config.ts';
import type { AlertPayload, DeliveryResult } from '../domain/rules/alert.ts';
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

export function slackMessage(alert: AlertPayload, config: SlackConfig): SlackMessage {
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
  alert: AlertPayload,
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
