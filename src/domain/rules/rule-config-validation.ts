/**
 * @module The one ruleConfig validator (DESIGN 6) behind rule create, update and test: the kind of
 * the rule type (kinds/registry.ts) checks the config against its schema, then its own semantic
 * checks name every problem with a hint and return the normalised config.
 */
import { describeValue } from './kinds/condition/condition-validation.ts';
import { ruleKinds, type RuleKindRegistry } from './kinds/registry.ts';
import type { RuleConfigValidation } from './kinds/rule-kind.ts';
import { notAvailableYet } from './rule-types.ts';

export type { RuleConfigValidation } from './kinds/rule-kind.ts';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Validates `ruleConfig` for `ruleType`. The kind's own messages (with their hints) are what a
 * client sees, as before the schemas existed; the schema's own words only name a problem its
 * checks let through (a schema stricter than them would otherwise refuse in silence).
 */
export function validateRuleConfig(
  ruleType: string,
  ruleConfig: unknown,
  kinds: RuleKindRegistry = ruleKinds(),
): RuleConfigValidation {
  // A type no kind serves: an arbitrary object would be stored and shown as a config.
  if (!kinds.has(ruleType)) return { ok: false, errors: [notAvailableYet(ruleType, kinds.types)] };
  if (!isPlainObject(ruleConfig)) {
    return {
      ok: false,
      errors: [`ruleConfig must be an object, got ${describeValue(ruleConfig)}`],
    };
  }
  const checked = kinds.get(ruleType).validate(ruleConfig);
  const shape = kinds.check(ruleType);
  if (!checked.ok || shape.Check(ruleConfig)) return checked;
  return {
    ok: false,
    errors: [...shape.Errors(ruleConfig)].map(({ path, message }) =>
      path === '' ? message : `${path.slice(1).replace(/\//g, '.')}: ${message}`,
    ),
  };
}
