/**
 * @module The fields of a rule that its author sets, and how a PUT changes them (DESIGN 6): the
 * fields present replace the stored ones; nothing present that differs means no change at all.
 */
import { isDeepStrictEqual } from 'node:util';
import type { NotificationChannel, RuleConfig, RuleSeverity, RuleType } from './rule-types.ts';

export interface RuleFields {
  readonly name: string;
  readonly description: string | null;
  readonly ruleType: RuleType;
  readonly ruleConfig: RuleConfig;
  readonly severity: RuleSeverity;
  readonly priority: number;
  readonly notificationChannels: readonly NotificationChannel[];
  readonly notificationConfig: Readonly<Record<string, unknown>> | null;
  readonly suppressionWindowMinutes: number;
  readonly maxAlertsPerHour: number;
  readonly createdBy: string | null;
}

const FIELD_NAMES: readonly (keyof RuleFields)[] = [
  'name',
  'description',
  'ruleType',
  'ruleConfig',
  'severity',
  'priority',
  'notificationChannels',
  'notificationConfig',
  'suppressionWindowMinutes',
  'maxAlertsPerHour',
  'createdBy',
];

export const ruleFieldsOf = (rule: RuleFields): RuleFields =>
  Object.fromEntries(FIELD_NAMES.map((f) => [f, rule[f]])) as unknown as RuleFields;

/** The rule after the update, and whether anything differs from what is stored. */
export function mergeRuleUpdate(
  current: RuleFields,
  update: Partial<RuleFields>,
): { readonly next: RuleFields; readonly changed: boolean } {
  const next = { ...ruleFieldsOf(current) } as Record<keyof RuleFields, unknown>;
  let changed = false;
  for (const field of FIELD_NAMES) {
    if (!(field in update) || update[field] === undefined) continue;
    if (!isDeepStrictEqual(update[field], current[field])) changed = true;
    next[field] = update[field];
  }
  return { next: next as unknown as RuleFields, changed };
}
