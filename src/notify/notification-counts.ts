/**
 * @module Notification deliveries by channel type and outcome (front thread), counted as their
 * results reach the delivery recorder, for GET /metrics. The channel is the type of the rule's
 * entry (`slack:oncall` counts as `slack`), so the labels stay a fixed, small set whatever the
 * contact points are named.
 */
import { parseChannelRef } from '../domain/contact-points/contact-point.ts';
import type { DeliveryResult } from '../domain/rules/alerts/alert.ts';
import { NOTIFICATION_CHANNELS } from '../domain/rules/rule-types.ts';
import { DROPPED_REASON } from './deliver.ts';

/** `invalid`: an entry that names no channel type (a rule edited in the database). */
export const DELIVERY_CHANNELS = [...NOTIFICATION_CHANNELS, 'invalid'] as const;
export type DeliveryChannel = (typeof DELIVERY_CHANNELS)[number];

/** `dropped`: no slot and no room in the queue (NOTIFY_QUEUE_MAX); `failed`: any other failure. */
export const DELIVERY_OUTCOMES = ['delivered', 'failed', 'dropped'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

export interface DeliveryCount {
  readonly channel: DeliveryChannel;
  readonly outcome: DeliveryOutcome;
  readonly count: number;
}

const outcomeOf = (result: DeliveryResult): DeliveryOutcome =>
  result.ok ? 'delivered' : result.error === DROPPED_REASON ? 'dropped' : 'failed';

export class NotificationCounts {
  /** Channel-major: DELIVERY_CHANNELS x DELIVERY_OUTCOMES. */
  private readonly counts = new Float64Array(DELIVERY_CHANNELS.length * DELIVERY_OUTCOMES.length);

  add(results: readonly DeliveryResult[]): void {
    for (const result of results) {
      const channel = DELIVERY_CHANNELS.indexOf(parseChannelRef(result.channel)?.type ?? 'invalid');
      const outcome = DELIVERY_OUTCOMES.indexOf(outcomeOf(result));
      this.counts[channel * DELIVERY_OUTCOMES.length + outcome]!++;
    }
  }

  /** Every channel and outcome, zeros included (a series that exists from the start). */
  read(): DeliveryCount[] {
    return DELIVERY_CHANNELS.flatMap((channel, c) =>
      DELIVERY_OUTCOMES.map((outcome, o) => ({
        channel,
        outcome,
        count: this.counts[c * DELIVERY_OUTCOMES.length + o] as number,
      })),
    );
  }
}
