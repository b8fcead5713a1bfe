/**
 * @module What drl-parser.ts reads back from a rule's DRL. Apart from the parser, which asks the
 * registry for each kind's reader, so that the kinds can name these without a cycle.
 */
import type { AnomalyWhen } from './kinds/anomaly/anomaly-drl.ts';
import type { PatternConfig } from './kinds/pattern/pattern-config.ts';
import type { Condition, RuleSeverity } from './rule-types.ts';

export interface ParsedDrl {
  readonly id: number | null;
  readonly name: string;
  readonly ruleType: string;
  readonly salience: number;
  readonly severity: RuleSeverity;
  /** The condition tree (leaves only carry windows); null for the never-firing stub. */
  readonly condition: Condition | null;
  /** The lifecycle attributes; absent when the DRL has none. */
  readonly lifecycle?: ParsedLifecycle;
  /** PATTERN: the config its `$m.pattern(...)` holds. */
  readonly pattern?: PatternConfig;
  /** ANOMALY: its series and band, as read back. */
  readonly anomaly?: AnomalyWhen;
}

export interface ParsedLifecycle {
  /** `@pendingSeconds` and `@keepFiringSeconds`, 0 when absent. */
  readonly pendingSeconds: number;
  readonly keepFiringSeconds: number;
  /** Per leaf in document order: its `@recoveryThreshold`, or undefined. */
  readonly recoveryThresholds: readonly (number | undefined)[];
}

export type DrlParseResult =
  { readonly ok: true; readonly rule: ParsedDrl } | { readonly ok: false; readonly error: string };
