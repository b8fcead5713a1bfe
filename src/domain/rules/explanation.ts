/**
 * @module Explanations (issue 18): a rule's condition tree as evaluated at a transition, every
 * leaf with its metric, window, operator, threshold, value and result, every AND / OR / NOT with
 * its result; and the leaves that made it true, in words, for notifications. Runs on the metrics
 * actor's detailed path only (a transition or a rule test), never on the per-tick boolean path.
 */
import { isSilenceMetric } from '../metrics/windows/metric-names.ts';
import type { ConditionExplanation, ExplainedCondition, Explanation } from './alerts/alert.ts';
import { patternWords } from './kinds/pattern/pattern-explanation.ts';
import { bandWords } from './kinds/anomaly/anomaly-explanation.ts';
import { OPERATORS, type LogicalOperator, type OperatorName } from './rule-types.ts';

/** What explaining a leaf needs of it (a prepared leaf of the evaluator). */
export interface LeafToExplain {
  readonly metric: string;
  readonly key: string | null;
  readonly operator: OperatorName;
  readonly threshold: number;
  readonly recoveryThreshold: number | undefined;
  readonly windowMinutes: number;
}

export function compare(value: number, operator: OperatorName, threshold: number): boolean {
  switch (operator) {
    case 'GREATER_THAN':
      return value > threshold;
    case 'GREATER_THAN_OR_EQUAL':
      return value >= threshold;
    case 'LESS_THAN':
      return value < threshold;
    case 'LESS_THAN_OR_EQUAL':
      return value <= threshold;
    case 'EQUALS':
      return value === threshold;
    case 'NOT_EQUALS':
      return value !== threshold;
  }
}

/**
 * A leaf compared with its threshold, or (`recovering`: the rule is FIRING) with its
 * recoveryThreshold when it has one. `value` null: nothing to compare, the leaf is false.
 */
export function explainLeaf(
  leaf: LeafToExplain,
  value: number | null,
  recovering: boolean,
  measure: ExplainedCondition['measure'] = 'value',
): ExplainedCondition {
  const comparedWith = recovering ? (leaf.recoveryThreshold ?? leaf.threshold) : leaf.threshold;
  return {
    metric: leaf.metric,
    key: leaf.key,
    measure,
    windowMinutes: leaf.windowMinutes,
    operator: leaf.operator,
    threshold: leaf.threshold,
    recoveryThreshold: leaf.recoveryThreshold ?? null,
    comparedWith,
    value,
    result: value !== null && compare(value, leaf.operator, comparedWith),
  };
}

export function explainNode(
  logicalOperator: LogicalOperator,
  conditions: readonly ConditionExplanation[],
): ConditionExplanation {
  const result =
    logicalOperator === 'AND'
      ? conditions.every((c) => c.result)
      : logicalOperator === 'OR'
        ? conditions.some((c) => c.result)
        : !(conditions[0]?.result ?? false);
  return { logicalOperator, result, conditions };
}

/** A number as people read it: at most 6 significant digits (`0.0833333…` → `0.0833333`). */
const shown = (value: number | null): string =>
  value === null ? 'no value' : String(Number(value.toPrecision(6)));

function leafWords(leaf: ExplainedCondition): string {
  const w = leaf.windowMinutes;
  const subject =
    leaf.measure === 'percentChange'
      ? `percent change of ${leaf.metric} over ${w} min vs the ${w} before`
      : isSilenceMetric(leaf.metric)
        ? leaf.metric // a time since the last event: no window
        : `${leaf.metric} over ${w} min`;
  return `${subject} = ${shown(leaf.value)} ${OPERATORS[leaf.operator]} ${leaf.comparedWith}`;
}

/** The whole condition in words, each leaf with its value (for a NOT). */
function allWords(node: ConditionExplanation): string {
  if (!('logicalOperator' in node)) return leafWords(node);
  if (node.logicalOperator === 'NOT')
    return `NOT (${node.conditions[0] === undefined ? '' : allWords(node.conditions[0])})`;
  return node.conditions
    .map((c) =>
      'logicalOperator' in c && c.logicalOperator !== 'NOT' ? `(${allWords(c)})` : allWords(c),
    )
    .join(` ${node.logicalOperator} `);
}

/** Pushes what makes a true node true: its true leaves, and each true NOT with what it negates. */
function trueWords(node: ConditionExplanation, out: string[]): void {
  if (!('logicalOperator' in node)) {
    out.push(leafWords(node));
    return;
  }
  if (node.logicalOperator === 'NOT') {
    out.push(allWords(node));
    return;
  }
  for (const child of node.conditions) if (child.result) trueWords(child, out);
}

/**
 * The leaves that made the condition true, in words, joined by `; `:
 * `errorRate over 5 min = 0.083 > 0.05`. Empty when the condition is false.
 */
export function explanationText(tree: Explanation | null): string {
  if (tree === null || !tree.result) return '';
  if ('pattern' in tree) return patternWords(tree);
  if ('measure' in tree && tree.measure === 'band') return bandWords(tree);
  const out: string[] = [];
  trueWords(tree, out);
  return out.join('; ');
}
