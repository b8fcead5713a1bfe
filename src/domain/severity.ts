/**
 * @module How urgent an alert is. Declared below rules and silences: a rule sets it, a silence
 * matches on it, and neither folder needs the other for it (issue 31's folder layers).
 */
export const RULE_SEVERITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type RuleSeverity = (typeof RULE_SEVERITIES)[number];
