/**
 * @module The webhook channel: POSTs the notification, as is, to the rule's URL with its headers
 * and an `Idempotency-Key` (the transitionId: the same on every attempt and after a restart), on
 * the front thread; retries per NotifyOptions; never throws.
 */
import type { WebhookConfig } from '../domain/rules/alerts/notification-config.ts';
import type { DeliveryResult } from '../domain/rules/alerts/alert.ts';
import type { Notification } from '../domain/rules/alerts/notification.ts';
import { postJson } from './http-post.ts';
import type { NotifyOptions } from './notify-options.ts';

export const sendWebhook = (
  notification: Notification,
  config: WebhookConfig,
  options: NotifyOptions,
): Promise<DeliveryResult> =>
  postJson(
    {
      channel: 'webhook',
      url: config.url,
      body: notification,
      // Last: a configured header of the same name does not replace it.
      headers: { ...config.headers, 'Idempotency-Key': notification.transitionId },
      timeoutMs: config.timeoutMs ?? options.timeoutMs,
    },
    options,
  );
