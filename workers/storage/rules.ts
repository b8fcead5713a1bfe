/** @module The storage worker's rule operations. */
import * as rules from '../../src/db/rules-repository.ts';
import type { RuleRecord } from '../../src/domain/rules/rule.ts';
import type { DbFailure, Result, RuleHandlers } from '../../src/protocol/storage/index.ts';
import type { AreaTable, StorageContext } from './context.ts';

const notFound = { ok: false, code: 'NOT_FOUND', message: 'Rule not found' } as const;

/** Turns a repository answer that may be a failure word into a Result. */
function settle<T extends object, W extends string>(
  result: Result<T | W | null, DbFailure>,
  messages: Readonly<Record<W, string>>,
): Result<T, DbFailure | W | 'NOT_FOUND'> {
  if (!result.ok) return result;
  const value = result.value;
  if (value === null) return notFound;
  if (typeof value === 'string') return { ok: false, code: value, message: messages[value] };
  return { ok: true, value };
}

const NAME_TAKEN = 'A rule with this name already exists';

export const ruleHandlers = ({ sql, guarded }: StorageContext): AreaTable<RuleHandlers> => ({
  async createRule({ rule, maxRules }) {
    const result = await guarded('createRule', () => rules.createRule(sql, rule, maxRules));
    if (!result.ok) return result;
    if (result.value === 'NAME_TAKEN')
      return { ok: false, code: 'NAME_TAKEN', message: NAME_TAKEN };
    if (result.value === 'RULE_LIMIT') {
      return {
        ok: false,
        code: 'RULE_LIMIT',
        message: `At most ${maxRules} rules may exist (MAX_RULES); delete one to make room`,
      };
    }
    return { ok: true, value: result.value };
  },
  getRule: async ({ id }) =>
    settle<RuleRecord, never>(await guarded('getRule', () => rules.getRule(sql, id)), {}),
  listRules: ({ filter }) => guarded('listRules', () => rules.listRules(sql, filter)),
  topTriggeredRules: ({ limit }) =>
    guarded('topTriggeredRules', () => rules.topTriggeredRules(sql, limit)),
  updateRule: async ({ id, expectedVersion, rule }) =>
    settle<RuleRecord, 'NAME_TAKEN' | 'NOT_FOUND' | 'VERSION_CHANGED'>(
      await guarded('updateRule', () => rules.updateRule(sql, id, expectedVersion, rule)),
      {
        NAME_TAKEN,
        NOT_FOUND: 'Rule not found',
        VERSION_CHANGED: 'The rule was changed by another request; read it again and retry',
      },
    ),
  setRuleStatus: async ({ id, status }) =>
    settle<RuleRecord, never>(
      await guarded('setRuleStatus', () => rules.setRuleStatus(sql, id, status)),
      {},
    ),
  async deleteRule({ id }) {
    const result = await guarded('deleteRule', () => rules.deleteRule(sql, id));
    if (!result.ok) return result;
    return result.value ? { ok: true, value: true } : notFound;
  },
  ruleStatistics: () => guarded('ruleStatistics', () => rules.ruleStatistics(sql)),
  regenerateDrls: () => guarded('regenerateDrls', () => rules.regenerateDrls(sql)),
  ruleChanges: () => guarded('ruleChanges', () => rules.ruleChangeSeq(sql)),
});
