/**
 * @module The webhook channel: POSTs the AlertPayload, as is, to the rule's URL with its headers
 * (front thread; retries per NotifyOptions; never throws).
 */
import type { WebhookConfig } from '../domain/rules/notification-config.ts';
import type { AlertPayload, DeliveryResult } from '../domain/rules/alert.ts';
import { postJson } from './http-post.ts';
import type { NotifyOptions } from './notify-options.ts';

export const sendWebhook = (
  alert: AlertPayload,
  config: WebhookConfig,
  options: NotifyOptions,
): Promise<DeliveryResult> =>
  postJson(
    {
      channel: 'webhook',
      url: config.url,
      body: alert,
      headers: config.headers,
      timeoutMs: config.timeoutMs ?? options.timeoutMs,
    },
    options,
  );
