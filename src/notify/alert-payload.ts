/**
 * @module The alert as notification channels receive it: plain JSON, the webhook body as is and
 * the source of the Slack and e-mail texts.
 */
import type { NotificationChannel, RuleSeverity } from '../domain/rules/rule-types.ts';

export interface AlertPayload {
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
  readonly message: string;
}

/** The outcome of one channel for one alert. */
export interface DeliveryResult {
  readonly channel: NotificationChannel;
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
