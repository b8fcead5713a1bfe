/**
 * @module The condition tree in DRL (THRESHOLD and RATE_CHANGE): leaves as `eval( … )`, AND / OR
 * as Drools prefix `(and …)` / `(or …)`, NOT as `not( … )`; the lifecycle keys as attributes; and
 * the check that a parsed rule kept all of it.
 */
import { VALUE_FUNCTION, javaDouble, javaString } from '../../drl-syntax.ts';
import type { ParsedDrl } from '../../drl-parsed.ts';
import {
  OPERATORS,
  conditionTree,
  isConditionNode,
  leaves,
  lifecycleOf,
  sameCondition,
  type Condition,
  type ConditionLeaf,
  type LifecycleKeys,
  type RuleConfig,
} from '../../rule-types.ts';

const INDENT = '    ';

export function leafLine(leaf: ConditionLeaf, fn: string): string {
  const call = `$m.${fn}(${javaString(leaf.metric)}, ${leaf.windowMinutes})`;
  return `eval( ${call} ${OPERATORS[leaf.operator]} ${javaDouble(leaf.threshold)} )`;
}

/** The tree's lines, the root at `pad`, each level one indent deeper. */
export function conditionLines(condition: Condition, pad: string, out: string[] = []): string[] {
  if (!isConditionNode(condition)) {
    out.push(pad + leafLine(condition, VALUE_FUNCTION));
    return out;
  }
  out.push(
    pad +
      (condition.logicalOperator === 'NOT'
        ? 'not('
        : `(${condition.logicalOperator.toLowerCase()}`),
  );
  for (const child of condition.conditions) conditionLines(child, pad + INDENT, out);
  out.push(`${pad})`);
  return out;
}

/** `@pendingSeconds(60)`, `@keepFiringSeconds(30)` (absent when unset: the DRL and hash stay). */
export function lifecycleAttributes(keys: LifecycleKeys): string[] {
  const out: string[] = [];
  if (keys.pendingSeconds !== undefined) out.push(`@pendingSeconds(${keys.pendingSeconds})`);
  if (keys.keepFiringSeconds !== undefined)
    out.push(`@keepFiringSeconds(${keys.keepFiringSeconds})`);
  return out;
}

/** The lifecycle keys, then `@recoveryThreshold(i, 0.03)` for the i-th leaf in document order. */
export function conditionAttributes(config: Condition): string[] {
  const out = lifecycleAttributes(config);
  leaves(config).forEach((leaf, i) => {
    if (leaf.recoveryThreshold !== undefined)
      out.push(`@recoveryThreshold(${i}, ${javaDouble(leaf.recoveryThreshold)})`);
  });
  return out;
}

/** Why the parsed lifecycle attributes differ from the config's; null when they do not. */
export function lifecycleSurvived(config: LifecycleKeys, back: ParsedDrl): string | null {
  const { pendingSeconds, keepFiringSeconds } = lifecycleOf(config as RuleConfig);
  return (back.lifecycle?.pendingSeconds ?? 0) !== pendingSeconds ||
    (back.lifecycle?.keepFiringSeconds ?? 0) !== keepFiringSeconds
    ? 'the lifecycle attributes did not survive'
    : null;
}

/** Why the parsed tree, lifecycle or recovery thresholds differ; null when they do not. */
export function conditionSurvived(config: Condition, back: ParsedDrl): string | null {
  const expected = conditionTree(config);
  if (back.condition === null || !sameCondition(back.condition, expected)) {
    return 'the condition tree did not survive';
  }
  const lifecycle = lifecycleSurvived(config, back);
  if (lifecycle !== null) return lifecycle;
  const recovery = leaves(config).map((l) => l.recoveryThreshold);
  if (recovery.some((r, i) => !Object.is(r, back.lifecycle?.recoveryThresholds[i])))
    return 'the recovery thresholds did not survive';
  return null;
}
