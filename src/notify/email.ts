/**
 * @module The email channel: a plain-text alert mail sent through the SMTP relay of SMTP_URL with
 * nodemailer (front thread; retries per NotifyOptions; never throws; no SMTP_URL: a failed result).
 */
import { createTransport, type Transporter } from 'nodemailer';
import type { SMTPSentMessageInfo } from 'nodemailer/lib/smtp-transport';
import type { EmailConfig } from '../domain/rules/alerts/notification-config.ts';
import type { AlertPayload, DeliveryResult } from '../domain/rules/alerts/alert.ts';
import {
  digestEntryText,
  durationText,
  type DigestNotification,
  type IncidentNotification,
  type Notification,
} from '../domain/rules/alerts/notification.ts';
import type { NotifyOptions } from './notify-options.ts';
import { smtpReason } from './failure-reasons.ts';
import { type AttemptOutcome, deliveryFailure, withRetries } from './result.ts';

export interface EmailMessage {
  readonly from: string;
  readonly to: readonly string[];
  readonly subject: string;
  readonly text: string;
}

/** Errors of nodemailer that another attempt may fix (no SMTP reply code: the connection failed). */
const TRANSIENT_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ETLS']);

const oneLine = (text: string): string => text.replace(/[\r\n]+/g, ' ');

/** The mail of a notification: the alert that fired, resolved, or a digest. */
export function emailMessage(
  notification: Notification,
  config: EmailConfig,
  from: string,
): EmailMessage {
  const to = typeof config.to === 'string' ? [config.to] : [...config.to];
  const mail = (defaultSubject: string, text: string): EmailMessage => ({
    from,
    to,
    subject: oneLine(config.subject ?? defaultSubject),
    text,
  });
  switch (notification.transition) {
    case 'FIRING':
      return firingMail(notification, config, from);
    case 'RESOLVED':
      return mail(`[Vigil RESOLVED] ${notification.ruleName}`, resolvedText(notification));
    case 'DIGEST':
      return mail(`[Vigil DIGEST] ${notification.ruleName}`, digestText(notification));
  }
}

function resolvedText(alert: IncidentNotification): string {
  const values = Object.entries(alert.valuesAtResolve ?? {}).map(([m, v]) => `  ${m} = ${v}`);
  return [
    `Rule: ${alert.ruleName} (id ${alert.ruleId}, version ${alert.ruleVersion})`,
    `Severity: ${alert.severity}`,
    `Fired at: ${alert.firedAt}`,
    `Resolved at: ${alert.resolvedAt ?? ''}`,
    `Lasted: ${durationText(alert.durationSeconds ?? 0)}`,
    `Message: ${alert.message}`,
    '',
    'Values at recovery:',
    ...(values.length === 0 ? ['  (none)'] : values),
    '',
    `Alert id: ${alert.alertId}`,
    `Transition id: ${alert.transitionId}`,
    '',
  ].join('\n');
}

function digestText(digest: DigestNotification): string {
  return [
    `Rule: ${digest.ruleName} (id ${digest.ruleId}, version ${digest.ruleVersion})`,
    `Severity: ${digest.severity}`,
    `Message: ${digest.message}`,
    '',
    'Held back:',
    ...digest.alerts.map((entry) => `  - ${digestEntryText(entry)}`),
    '',
    `Transition id: ${digest.transitionId}`,
    '',
  ].join('\n');
}

function firingMail(alert: AlertPayload, config: EmailConfig, from: string): EmailMessage {
  const values = Object.entries(alert.currentValues).map(([metric, v]) => `  ${metric} = ${v}`);
  const text = [
    `Rule: ${alert.ruleName} (id ${alert.ruleId}, version ${alert.ruleVersion})`,
    `Severity: ${alert.severity}`,
    `Triggered at: ${alert.triggeredAt}`,
    ...(alert.message === '' ? [] : [`Message: ${alert.message}`]),
    ...(alert.explanationText === '' ? [] : [`Why: ${alert.explanationText}`]),
    '',
    'Matched conditions:',
    ...(alert.matchedConditions.length === 0
      ? ['  (none)']
      : alert.matchedConditions.map((c) => `  - ${c}`)),
    '',
    'Current values:',
    ...(values.length === 0 ? ['  (none)'] : values),
    '',
    `Alert id: ${alert.id}`,
    '',
  ].join('\n');
  return {
    from,
    to: typeof config.to === 'string' ? [config.to] : [...config.to],
    subject: oneLine(config.subject ?? `[Vigil ${alert.severity}] ${alert.ruleName}`),
    text,
  };
}

/** SMTP reply code at the start of a server response such as `250 OK: queued`. */
const replyCode = (response: unknown): number | undefined => {
  const match = typeof response === 'string' ? /^(\d{3})\b/.exec(response) : null;
  return match?.[1] === undefined ? undefined : Number(match[1]);
};

/** 4xx replies are transient by SMTP's own definition, 5xx permanent. Stored: code, fixed text. */
function failureOf(error: unknown): AttemptOutcome {
  const { responseCode, code } = (typeof error === 'object' && error !== null ? error : {}) as {
    responseCode?: unknown;
    code?: unknown;
  };
  const status = typeof responseCode === 'number' ? responseCode : undefined;
  const transient =
    status !== undefined
      ? status >= 400 && status < 500
      : typeof code === 'string' && TRANSIENT_CODES.has(code);
  return { kind: transient ? 'retry' : 'fail', status, error: smtpReason(status, error) };
}

export async function sendEmail(
  alert: Notification,
  config: EmailConfig,
  options: NotifyOptions,
): Promise<DeliveryResult> {
  if (options.smtpUrl === undefined || options.smtpUrl === '') {
    return deliveryFailure('email', 0, 'SMTP_URL is not set: email notifications are disabled');
  }
  const message = emailMessage(alert, config, options.from);
  let transport: Transporter<SMTPSentMessageInfo>;
  try {
    transport = createTransport({
      url: options.smtpUrl,
      connectionTimeout: options.timeoutMs,
      greetingTimeout: options.timeoutMs,
      socketTimeout: options.timeoutMs,
    });
  } catch {
    // The URL may hold the relay's credentials: its parser's message is not repeated.
    return deliveryFailure('email', 0, 'SMTP_URL is not usable');
  }
  try {
    return await withRetries('email', options, async () => {
      try {
        const info = await transport.sendMail({ ...message, to: [...message.to] });
        return { kind: 'ok', status: replyCode(info.response) };
      } catch (error) {
        return failureOf(error);
      }
    });
  } finally {
    transport.close();
  }
}
