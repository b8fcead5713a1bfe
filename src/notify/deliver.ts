/**
 * @module deliverAlert: hands one alert to every channel of its rule at once (front thread). Each
 * channel's config is checked first; one failing or slow channel never holds up the others. Every
 * channel's delivery takes a slot of the shared DeliveryLimiter, or is dropped when its queue is full.
 */
import { channelConfig } from '../domain/rules/notification-config.ts';
import type { NotificationChannel } from '../domain/rules/rule-types.ts';
import type { AlertPayload, DeliveryResult } from '../domain/rules/alert.ts';
import type { DeliveryLimiter } from './delivery-limiter.ts';
import { sendEmail } from './email.ts';
import { INTERNAL_ERROR } from './failure-reasons.ts';
import type { NotifyOptions } from './notify-options.ts';
import { deliveryFailure } from './result.ts';
import { sendSlack } from './slack.ts';
import { sendWebhook } from './webhook.ts';

/** What delivery reads of a rule; a stored RuleRecord fits. */
export interface NotifyRule {
  readonly notificationChannels: readonly NotificationChannel[];
  readonly notificationConfig: unknown;
}

async function deliverTo(
  channel: NotificationChannel,
  alert: AlertPayload,
  config: unknown,
  options: NotifyOptions,
): Promise<DeliveryResult> {
  // Stored configs predating validation, or edited in the database, are checked again here.
  const invalid = (errors: Readonly<Record<string, string>>): DeliveryResult =>
    deliveryFailure(channel, 0, `invalid notificationConfig: ${Object.values(errors).join('; ')}`);
  switch (channel) {
    case 'webhook': {
      const checked = channelConfig('webhook', config);
      return checked.ok ? sendWebhook(alert, checked.value, options) : invalid(checked.errors);
    }
    case 'slack': {
      const checked = channelConfig('slack', config);
      return checked.ok ? sendSlack(alert, checked.value, options) : invalid(checked.errors);
    }
    case 'email': {
      const checked = channelConfig('email', config);
      return checked.ok ? sendEmail(alert, checked.value, options) : invalid(checked.errors);
    }
    default:
      return deliveryFailure(channel, 0, `unknown channel '${String(channel)}'`);
  }
}

export const DROPPED_REASON = 'dropped: notification queue full';

/**
 * Delivers `alert` to each distinct channel of `rule`, in parallel within `limiter`'s bound; one
 * result per channel, in the order of `notificationChannels`. Never rejects: every problem is a
 * failed result.
 */
export async function deliverAlert(
  alert: AlertPayload,
  rule: NotifyRule,
  options: NotifyOptions,
  limiter: DeliveryLimiter,
): Promise<DeliveryResult[]> {
  const channels = [...new Set(rule.notificationChannels)];
  const settled = await Promise.allSettled(
    channels.map((channel) =>
      limiter.run(
        () => deliverTo(channel, alert, rule.notificationConfig, options),
        () => deliveryFailure(channel, 0, DROPPED_REASON),
      ),
    ),
  );
  return settled.map((outcome, i) =>
    outcome.status === 'fulfilled'
      ? outcome.value
      : deliveryFailure(
          channels[i] as NotificationChannel,
          0,
          `delivery failed: ${INTERNAL_ERROR}`,
        ),
  );
}
