/**
 * @module deliverAlert: hands one alert to every channel entry of its rule at once (front thread).
 * Each entry resolves to a contact point (its default for the type, or the one it names), whose
 * settings, with the rule's non-secret notificationConfig merged over them, are checked and used;
 * an entry without a contact point is a failed result at once. One failing or slow channel never
 * holds up the others. Every send takes a slot of the shared DeliveryLimiter, or is dropped when
 * its queue is full.
 */
import {
  noContactPoint,
  parseChannelRef,
  type ChannelRef,
  type ContactPoint,
} from '../domain/contact-points/contact-point.ts';
import { applyTemplate } from '../domain/rules/alerts/template.ts';
import { channelConfig, mergeChannelSettings } from '../domain/rules/alerts/notification-config.ts';
import type { DeliveryResult } from '../domain/rules/alerts/alert.ts';
import type { Notification } from '../domain/rules/alerts/notification.ts';
import type { RuleNotification } from '../domain/rules/rule.ts';
import type { DeliveryLimiter } from './delivery-limiter.ts';
import { sendEmail } from './email.ts';
import { INTERNAL_ERROR } from './failure-reasons.ts';
import type { NotifyOptions } from './notify-options.ts';
import { deliveryFailure } from './result.ts';
import { sendSlack } from './slack.ts';
import { sendWebhook } from './webhook.ts';

/** What delivery reads of a rule; a stored RuleRecord, an ActiveRule and a FiredAlert fit. */
export type NotifyRule = RuleNotification;

/** The contact point a channel entry means, if any (src/notify/contact-point-directory.ts). */
export interface ContactPointLookup {
  resolve(ref: ChannelRef): ContactPoint | undefined;
}

/**
 * A template replaces the message of a FIRING notification only: RESOLVED and DIGEST keep Vigil's
 * own, which say what happened (a template written for the firing would read as a new alert).
 */
const templated = (notification: Notification, template: unknown): Notification =>
  notification.transition === 'FIRING' ? applyTemplate(notification, template) : notification;

async function send(
  point: ContactPoint,
  alert: Notification,
  ruleConfig: unknown,
  options: NotifyOptions,
): Promise<DeliveryResult> {
  const settings = mergeChannelSettings(point.type, point.settings, ruleConfig);
  // Rows edited in the database, or a rule's setting that does not fit, are checked here again.
  const invalid = (errors: Readonly<Record<string, string>>): DeliveryResult =>
    deliveryFailure(
      point.type,
      0,
      `invalid settings of contact point ${point.name}: ${Object.keys(errors).join(', ')}`,
    );
  switch (point.type) {
    case 'webhook': {
      const checked = channelConfig('webhook', settings);
      if (!checked.ok) return invalid(checked.errors);
      return sendWebhook(templated(alert, checked.value.template), checked.value, options);
    }
    case 'slack': {
      const checked = channelConfig('slack', settings);
      if (!checked.ok) return invalid(checked.errors);
      return sendSlack(templated(alert, checked.value.template), checked.value, options);
    }
    case 'email': {
      const checked = channelConfig('email', settings);
      if (!checked.ok) return invalid(checked.errors);
      return sendEmail(templated(alert, checked.value.template), checked.value, options);
    }
  }
}

export const DROPPED_REASON = 'dropped: notification queue full';

/** One entry's delivery; the result names the entry as the rule lists it. */
async function deliverTo(
  entry: string,
  alert: Notification,
  rule: NotifyRule,
  options: NotifyOptions,
  limiter: DeliveryLimiter,
  contactPoints: ContactPointLookup,
): Promise<DeliveryResult> {
  const ref = parseChannelRef(entry);
  if (ref === undefined) return deliveryFailure(entry, 0, `unknown channel '${entry}'`);
  const point = contactPoints.resolve(ref);
  if (point === undefined) return deliveryFailure(entry, 0, noContactPoint(ref));
  const result = await limiter.run(
    () => send(point, alert, rule.notificationConfig, options),
    () => deliveryFailure(entry, 0, DROPPED_REASON),
  );
  return { ...result, channel: entry };
}

/**
 * Delivers `alert` (a FIRING, RESOLVED or DIGEST notification) to each distinct channel entry of
 * `rule`, in parallel within `limiter`'s bound; one result per entry, in the order of
 * `notificationChannels`. Never rejects: every problem is a failed result.
 */
export async function deliverAlert(
  alert: Notification,
  rule: NotifyRule,
  options: NotifyOptions,
  limiter: DeliveryLimiter,
  contactPoints: ContactPointLookup,
): Promise<DeliveryResult[]> {
  const entries = [...new Set(rule.notificationChannels)];
  const settled = await Promise.allSettled(
    entries.map((entry) => deliverTo(entry, alert, rule, options, limiter, contactPoints)),
  );
  return settled.map((outcome, i) =>
    outcome.status === 'fulfilled'
      ? outcome.value
      : deliveryFailure(entries[i] ?? '', 0, `delivery failed: ${INTERNAL_ERROR}`),
  );
}
