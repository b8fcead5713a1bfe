/**
 * @module How a PUT changes the fields of a rule that its author sets (RuleFields, DESIGN 6): the
 * fields present replace the stored ones; nothing present that differs means no change at all.
 */
import { isDeepStrictEqual } from 'node:util';
import type { RuleFields } from './rule.ts';

/** Every field of RuleFields, each once: the type makes a field added there fail here until listed. */
const FIELDS: Readonly<Record<keyof RuleFields, true>> = {
  name: true,
  description: true,
  ruleType: true,
  ruleConfig: true,
  severity: true,
  priority: true,
  notificationChannels: true,
  notificationConfig: true,
  suppressionWindowMinutes: true,
  maxAlertsPerHour: true,
  createdBy: true,
};
const FIELD_NAMES = Object.keys(FIELDS) as readonly (keyof RuleFields)[];

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
