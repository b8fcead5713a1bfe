/**
 * @module The lifecycle keys every evaluated rule type takes on the top level of its ruleConfig
 * (docs/rules.md, Lifecycle); declared apart so that each type's config can extend them.
 */

/** Upper bound of pendingSeconds and keepFiringSeconds: one day. */
export const MAX_LIFECYCLE_SECONDS = 86_400;

/**
 * The lifecycle keys of a rule (docs/rules.md, Lifecycle), allowed only on the top level of its
 * ruleConfig; absent means 0. Kept out of the condition tree that is evaluated and compared.
 */
export interface LifecycleKeys {
  /** How long the condition must hold before the rule goes FIRING. */
  readonly pendingSeconds?: number;
  /** How long the condition must have been false before a FIRING rule resolves. */
  readonly keepFiringSeconds?: number;
}
export const LIFECYCLE_KEYS = ['pendingSeconds', 'keepFiringSeconds'] as const;
