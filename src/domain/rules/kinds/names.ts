/**
 * @module The rule kinds by name: the `ruleType` enum of the API and the database. Part of the
 * registry (registry.ts), kept in a file that imports nothing, so that the vocabulary
 * (rule-types.ts), the schemas and the dashboard can name the kinds without loading their code.
 */
export const RULE_TYPES = ['THRESHOLD', 'RATE_CHANGE', 'ANOMALY', 'PATTERN'] as const;
export type RuleType = (typeof RULE_TYPES)[number];

/** Kinds whose ruleConfig is a condition tree read from the live metrics (the dashboard's editor). */
export const CONDITION_RULE_TYPES: ReadonlySet<RuleType> = new Set(['THRESHOLD', 'RATE_CHANGE']);
