/**
 * @module The alert record and its variants, declared once: the alert as stored and as the API,
 * /topic/alerts and the webhook return it; the payload the notification channels read; the alert
 * the evaluator fires; and the outcome of delivering it. Plain data only (they cross threads).
 */
import type { RuleSeverity } from './rule-types.ts';

/** The outcome of one notification channel for one alert. */
export interface DeliveryResult {
  /** The rule's notificationChannels entry: `slack`, `slack:oncall` (never a URL). */
  readonly channel: string;
  readonly ok: boolean;
  /** Attempts made; 0 when nothing was sent (invalid config, host not allowed, no SMTP_URL). */
  readonly attempts: number;
  /** HTTP status of the last response, or the SMTP reply code for email, when there was one. */
  readonly status?: number;
  /** Why it failed (absent when ok); never holds a URL, header or credential. */
  readonly error?: string;
  /** When the delivery finished, ISO 8601 UTC. */
  readonly at: string;
}

/** A stored alert, as the API returns it. */
export interface AlertRecord {
  /** The stored alert's id. */
  readonly id: number;
  readonly ruleId: number;
  readonly ruleName: string;
  readonly ruleVersion: number;
  readonly severity: RuleSeverity;
  /** ISO 8601 UTC with zone, e.g. `2026-11-22T19:30:00.123Z`. */
  readonly triggeredAt: string;
  /** What made the rule true, e.g. `errorRate 12.5 > 5` (the rule test's matchedConditions). */
  readonly matchedConditions: readonly string[];
  /** Each metric of the condition, spelled as in ruleConfig, to its value over the rule's window. */
  readonly currentValues: Readonly<Record<string, number>>;
  /** The rule's whole condition as text, e.g. `errorRate > 20 [1 min]`. */
  readonly condition: string;
  readonly message: string;
  /** One per channel once delivery finished; empty before, or without channels. */
  readonly deliveries: readonly DeliveryResult[];
}

/** What notification channels read of an alert (the webhook body, the Slack and e-mail texts). */
export type AlertPayload = Omit<AlertRecord, 'condition' | 'deliveries'>;

/** An alert the evaluator decided to fire, not yet stored; `triggeredAt` is epoch ms. */
export interface FiredAlert extends Omit<AlertRecord, 'id' | 'triggeredAt' | 'deliveries'> {
  readonly triggeredAt: number;
}

/** The filters of GET /api/v1/alerts. */
export interface AlertFilter {
  readonly ruleId: number | null;
  readonly severity: RuleSeverity | null;
  /** Epoch ms: alerts triggered at or after it. */
  readonly since: number | null;
}
