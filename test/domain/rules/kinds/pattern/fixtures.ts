/**
 * @module Fixtures for the PATTERN tests: the login example's ruleConfig (as a user writes it)
 * and a committed event as the metrics actor receives it while a PATTERN rule is ACTIVE.
 */
import type { DetailedMetricEvent } from '../../../../../src/domain/event.ts';

/** "3 failed logins then a success for the same userId within 5 minutes". */
export const LOGIN_CONFIG = {
  partitionBy: 'userId',
  withinMinutes: 5,
  steps: [
    {
      eventType: 'login',
      where: [{ field: 'metadata.success', operator: 'EQUALS', value: false }],
      times: { min: 3 },
    },
    { eventType: 'login', where: [{ field: 'metadata.success', operator: 'EQUALS', value: true }] },
  ],
};

export const detailedEvent = (
  id: number,
  userId: string,
  eventType: string,
  at: number,
  metadata: Record<string, unknown> = {},
): DetailedMetricEvent => ({
  id,
  eventType,
  source: 'web',
  userId,
  sessionId: null,
  severity: 'INFO',
  tags: {},
  metadata,
  receivedAt: at,
  latencyMs: 0,
});
