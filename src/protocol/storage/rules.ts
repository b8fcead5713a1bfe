/** @module The storage pool's rule operations. */
import type {
  RuleFields,
  RuleFilter,
  RuleRecord,
  RuleStatistics,
} from '../../domain/rules/rule.ts';
import type { RuleStatus } from '../../domain/rules/rule-types.ts';
import type { DbFailure, Result } from './result.ts';

type RuleFailure = DbFailure | 'NOT_FOUND';

export interface RuleHandlers {
  /** Refused with RULE_LIMIT when `maxRules` rules already exist. */
  createRule(input: {
    readonly rule: RuleFields;
    readonly maxRules: number;
  }): Promise<Result<RuleRecord, DbFailure | 'NAME_TAKEN' | 'RULE_LIMIT'>>;
  getRule(input: { readonly id: number }): Promise<Result<RuleRecord, RuleFailure>>;
  listRules(input: {
    readonly filter: RuleFilter;
  }): Promise<Result<readonly RuleRecord[], DbFailure>>;
  topTriggeredRules(input: {
    readonly limit: number;
  }): Promise<Result<readonly RuleRecord[], DbFailure>>;
  /** Replaces the fields if the rule is still at `expectedVersion`; bumps version, regenerates DRL. */
  updateRule(input: {
    readonly id: number;
    readonly expectedVersion: number;
    readonly rule: RuleFields;
  }): Promise<Result<RuleRecord, RuleFailure | 'NAME_TAKEN' | 'VERSION_CHANGED'>>;
  setRuleStatus(input: {
    readonly id: number;
    readonly status: RuleStatus;
  }): Promise<Result<RuleRecord, RuleFailure>>;
  deleteRule(input: { readonly id: number }): Promise<Result<true, RuleFailure>>;
  ruleStatistics(input: Record<string, never>): Promise<Result<RuleStatistics, DbFailure>>;
  /** Regenerates every rule's DRL and hash; versions unchanged. Answers how many rules. */
  regenerateDrls(input: Record<string, never>): Promise<Result<number, DbFailure>>;
  /** The rule change counter (rules-repository.ts ruleChangeSeq). */
  ruleChanges(input: Record<string, never>): Promise<Result<number, DbFailure>>;
}
