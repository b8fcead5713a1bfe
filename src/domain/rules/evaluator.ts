/**
 * @module Evaluates a rule's condition against windowed metrics: one function for the rule test and
 * for the live 1 s evaluation in the metrics actor. Rules are prepared once (metric names parsed,
 * operators resolved, cached per config object); the boolean path allocates nothing.
 */
import { parseMetricName, type MetricRef, type WindowedMetrics } from '../metrics/metric-names.ts';
import {
  OPERATORS,
  isConditionNode,
  type Condition,
  type ConditionLeaf,
  type OperatorName,
  type RuleConfig,
  type RuleType,
} from './rule-types.ts';

export interface EvaluationResult {
  readonly wouldTrigger: boolean;
  /** What made the rule true (`errorRate 12.5 > 5`, `NOT (totalEvents 4 < 0)`); empty when false. */
  readonly matchedConditions: string[];
  /** Each metric as written in ruleConfig → its value over the rule's window. */
  readonly currentValues: Record<string, number>;
  /** Why a rule could not be judged (RATE_CHANGE without a baseline, a type not evaluated). */
  readonly note?: string;
}

interface PreparedLeaf {
  readonly kind: 'leaf';
  readonly metric: string;
  readonly ref: MetricRef;
  readonly operator: OperatorName;
  readonly threshold: number;
  readonly windowMinutes: number;
  /** Position among the leaves: index of its value in the detailed path. */
  readonly index: number;
}
interface PreparedNode {
  readonly kind: 'AND' | 'OR' | 'NOT';
  readonly children: readonly PreparedCondition[];
}
type PreparedCondition = PreparedLeaf | PreparedNode;

/** A rule ready for evaluation; build it once per rule (change), evaluate it every tick. */
export type PreparedRule =
  | {
      readonly kind: 'threshold';
      readonly root: PreparedCondition;
      readonly leaves: readonly PreparedLeaf[];
    }
  | { readonly kind: 'rate-change'; readonly leaf: PreparedLeaf }
  | { readonly kind: 'not-evaluated'; readonly ruleType: RuleType };

const TOTAL_EVENTS: MetricRef = { kind: 'scalar', name: 'totalEvents' };

function compare(value: number, operator: OperatorName, threshold: number): boolean {
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

function prepareLeaf(leaf: ConditionLeaf, leaves: PreparedLeaf[]): PreparedLeaf {
  const ref = parseMetricName(leaf.metric);
  if (ref === null) throw new Error(`Unvalidated ruleConfig: unknown metric '${leaf.metric}'`);
  const prepared: PreparedLeaf = {
    kind: 'leaf',
    metric: leaf.metric,
    ref,
    operator: leaf.operator,
    threshold: leaf.threshold,
    windowMinutes: leaf.windowMinutes,
    index: leaves.length,
  };
  leaves.push(prepared);
  return prepared;
}

function prepareCondition(condition: Condition, leaves: PreparedLeaf[]): PreparedCondition {
  if (!isConditionNode(condition)) return prepareLeaf(condition, leaves);
  return {
    kind: condition.logicalOperator,
    children: condition.conditions.map((c) => prepareCondition(c, leaves)),
  };
}

/**
 * Prepares a validated config (the output of validateRuleConfig for `ruleType`); throws on an
 * unknown metric, which only an unvalidated config can hold.
 */
export function prepareRule(ruleType: RuleType, config: RuleConfig): PreparedRule {
  switch (ruleType) {
    case 'THRESHOLD': {
      const leaves: PreparedLeaf[] = [];
      const root = prepareCondition(config as Condition, leaves);
      return { kind: 'threshold', root, leaves };
    }
    case 'RATE_CHANGE':
      return { kind: 'rate-change', leaf: prepareLeaf(config as ConditionLeaf, []) };
    case 'ANOMALY':
    case 'PATTERN':
      return { kind: 'not-evaluated', ruleType };
  }
}

function holdsCondition(node: PreparedCondition, metrics: WindowedMetrics): boolean {
  switch (node.kind) {
    case 'leaf':
      return compare(metrics.value(node.ref, node.windowMinutes), node.operator, node.threshold);
    case 'AND':
      for (const child of node.children) if (!holdsCondition(child, metrics)) return false;
      return true;
    case 'OR':
      for (const child of node.children) if (holdsCondition(child, metrics)) return true;
      return false;
    case 'NOT':
      return !holdsCondition(node.children[0] as PreparedCondition, metrics);
  }
}

/** Percent change of a RATE_CHANGE leaf's metric; NaN when there is no baseline. */
function quickChange(leaf: PreparedLeaf, metrics: WindowedMetrics): number {
  const w = leaf.windowMinutes;
  if (metrics.previousValue(TOTAL_EVENTS, w) === 0) return Number.NaN;
  const previous = metrics.previousValue(leaf.ref, w);
  const current = metrics.value(leaf.ref, w);
  if (previous === 0) return current === 0 ? 0 : Number.NaN;
  return ((current - previous) / previous) * 100;
}

/** The percent change with both values, or why there is none. */
function percentChange(
  leaf: PreparedLeaf,
  metrics: WindowedMetrics,
): { current: number; previous: number; change: number | null; note?: string } {
  const w = leaf.windowMinutes;
  const current = metrics.value(leaf.ref, w);
  const previous = metrics.previousValue(leaf.ref, w);
  if (metrics.previousValue(TOTAL_EVENTS, w) === 0) {
    return {
      current,
      previous,
      change: null,
      note: `No events in the ${w} minutes before the last ${w}: RATE_CHANGE has no baseline to compare with, so the rule does not trigger`,
    };
  }
  if (previous === 0 && current !== 0) {
    return {
      current,
      previous,
      change: null,
      note: `${leaf.metric} was 0 in the ${w} minutes before the last ${w}: a percent change from 0 is undefined, so the rule does not trigger`,
    };
  }
  return {
    current,
    previous,
    change: previous === 0 ? 0 : ((current - previous) / previous) * 100,
  };
}

/** The boolean path: short-circuits and allocates nothing. */
export function holds(rule: PreparedRule, metrics: WindowedMetrics): boolean {
  switch (rule.kind) {
    case 'threshold':
      return holdsCondition(rule.root, metrics);
    case 'rate-change': {
      const change = quickChange(rule.leaf, metrics);
      return !Number.isNaN(change) && compare(change, rule.leaf.operator, rule.leaf.threshold);
    }
    case 'not-evaluated':
      return false;
  }
}

const leafText = (leaf: PreparedLeaf, value: number, label = leaf.metric): string =>
  `${label} ${value} ${OPERATORS[leaf.operator]} ${leaf.threshold}`;

/** Truth of a node from the leaf values already read (no second read of the metrics). */
function truth(node: PreparedCondition, values: readonly number[]): boolean {
  switch (node.kind) {
    case 'leaf':
      return compare(values[node.index] ?? Number.NaN, node.operator, node.threshold);
    case 'AND':
      return node.children.every((c) => truth(c, values));
    case 'OR':
      return node.children.some((c) => truth(c, values));
    case 'NOT':
      return !truth(node.children[0] as PreparedCondition, values);
  }
}

/** A condition as text with its values: `a 1 > 0 AND (b 2 < 3 OR c 4 == 4)`. */
function describe(node: PreparedCondition, values: readonly number[]): string {
  switch (node.kind) {
    case 'leaf':
      return leafText(node, values[node.index] ?? Number.NaN);
    case 'NOT':
      return `NOT (${describe(node.children[0] as PreparedCondition, values)})`;
    case 'AND':
    case 'OR':
      return node.children
        .map((c) =>
          c.kind === 'AND' || c.kind === 'OR' ? `(${describe(c, values)})` : describe(c, values),
        )
        .join(` ${node.kind} `);
  }
}

/** Pushes what makes a node that holds true: its true leaves, and each true NOT negated. */
function explain(node: PreparedCondition, values: readonly number[], out: string[]): void {
  switch (node.kind) {
    case 'leaf':
      out.push(leafText(node, values[node.index] ?? Number.NaN));
      return;
    case 'AND':
    case 'OR':
      for (const child of node.children) if (truth(child, values)) explain(child, values, out);
      return;
    case 'NOT':
      out.push(`NOT (${describe(node.children[0] as PreparedCondition, values)})`);
      return;
  }
}

/**
 * currentValues: a metric under its name as written; the same metric over another window as
 * `<metric> (last <N> min)` so that no value hides another.
 */
function valuesRecord(
  leaves: readonly PreparedLeaf[],
  values: readonly number[],
): Record<string, number> {
  const out: Record<string, number> = {};
  const windowOf = new Map<string, number>();
  for (const leaf of leaves) {
    const value = values[leaf.index] ?? Number.NaN;
    const first = windowOf.get(leaf.metric);
    if (first === undefined) {
      windowOf.set(leaf.metric, leaf.windowMinutes);
      out[leaf.metric] = value;
    } else if (first !== leaf.windowMinutes) {
      out[`${leaf.metric} (last ${leaf.windowMinutes} min)`] = value;
    }
  }
  return out;
}

/** The detailed path: every value read once, the matched conditions, and a note when relevant. */
export function explainRule(rule: PreparedRule, metrics: WindowedMetrics): EvaluationResult {
  switch (rule.kind) {
    case 'threshold': {
      const values = rule.leaves.map((l) => metrics.value(l.ref, l.windowMinutes));
      const wouldTrigger = truth(rule.root, values);
      const matchedConditions: string[] = [];
      if (wouldTrigger) explain(rule.root, values, matchedConditions);
      return { wouldTrigger, matchedConditions, currentValues: valuesRecord(rule.leaves, values) };
    }
    case 'rate-change': {
      const { leaf } = rule;
      const { current, previous, change, note } = percentChange(leaf, metrics);
      const currentValues: Record<string, number> = {
        [leaf.metric]: current,
        [`previous(${leaf.metric})`]: previous,
      };
      if (change !== null) currentValues[`percentChange(${leaf.metric})`] = change;
      const wouldTrigger = change !== null && compare(change, leaf.operator, leaf.threshold);
      const matchedConditions =
        wouldTrigger && change !== null
          ? [leafText(leaf, change, `percentChange(${leaf.metric})`)]
          : [];
      return note === undefined
        ? { wouldTrigger, matchedConditions, currentValues }
        : { wouldTrigger, matchedConditions, currentValues, note };
    }
    case 'not-evaluated':
      return {
        wouldTrigger: false,
        matchedConditions: [],
        currentValues: {},
        note: `${rule.ruleType} rules are not evaluated yet`,
      };
  }
}

/** Prepared rules by config object: a live evaluator that keeps its configs pays parsing once. */
const prepared = new WeakMap<
  object,
  { readonly ruleType: RuleType; readonly rule: PreparedRule }
>();

function cachedPrepare(ruleType: RuleType, config: RuleConfig): PreparedRule {
  const hit = prepared.get(config);
  if (hit !== undefined && hit.ruleType === ruleType) return hit.rule;
  const rule = prepareRule(ruleType, config);
  prepared.set(config, { ruleType, rule });
  return rule;
}

/** Would the rule trigger now? Detailed result for tests and alerts. */
export function evaluateRule(
  ruleType: RuleType,
  config: RuleConfig,
  metrics: WindowedMetrics,
): EvaluationResult {
  return explainRule(cachedPrepare(ruleType, config), metrics);
}

/** The fast yes / no of evaluateRule, for the per-second tick; call evaluateRule only on yes. */
export function ruleHolds(
  ruleType: RuleType,
  config: RuleConfig,
  metrics: WindowedMetrics,
): boolean {
  return holds(cachedPrepare(ruleType, config), metrics);
}
