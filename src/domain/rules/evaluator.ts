/**
 * @module Evaluates a rule's condition against windowed metrics: one function for the rule test and
 * for the live 1 s evaluation in the metrics actor. Rules are prepared once per rule set: metric
 * names parsed, each (metric, window) read interned as a slot of the set's WindowReads (so a tick
 * computes each value once), and the yes / no compiled into the set's ConditionProgram, which
 * allocates nothing. The detailed path walks the prepared tree.
 */
import { parseMetricName, type MetricRef } from '../metrics/windows/metric-names.ts';
import {
  WindowReads,
  type SlotValues,
  type WindowedMetrics,
} from '../metrics/windows/window-reads.ts';
import type { ConditionExplanation, Explanation } from './alerts/alert.ts';
import { ConditionProgram } from './condition-program.ts';
import { compare, explainLeaf, explainNode } from './explanation.ts';
import {
  OPERATORS,
  isConditionNode,
  type Condition,
  type ConditionLeaf,
  type OperatorName,
  type RuleConfig,
} from './rule-types.ts';

export interface EvaluationResult {
  readonly wouldTrigger: boolean;
  /** What made the rule true (`errorRate 12.5 > 5`, `NOT (totalEvents 4 < 0)`); empty when false. */
  readonly matchedConditions: string[];
  /** Each metric as written in ruleConfig → its value over the rule's window. */
  readonly currentValues: Record<string, number>;
  /** Why a rule could not be judged (RATE_CHANGE without a baseline, a type not evaluated). */
  readonly note?: string;
  /** The condition tree as evaluated; null for a rule type that is not evaluated. */
  readonly explanation: Explanation | null;
}

interface PreparedLeaf {
  readonly kind: 'leaf';
  readonly metric: string;
  readonly ref: MetricRef;
  /** The key of an indexed metric, for explanations. */
  readonly key: string | null;
  readonly operator: OperatorName;
  readonly threshold: number;
  readonly recoveryThreshold: number | undefined;
  readonly windowMinutes: number;
  /** Where its value over its window is read (WindowReads). */
  readonly slot: number;
  /** Position among the leaves: index of its value in the detailed path. */
  readonly index: number;
}
interface PreparedNode {
  readonly kind: 'AND' | 'OR' | 'NOT';
  readonly children: readonly PreparedCondition[];
}
type PreparedCondition = PreparedLeaf | PreparedNode;

/** What the rules of one set share: the values they read, and their compiled yes / no. */
export class PreparedSet {
  readonly reads = new WindowReads();
  readonly program = new ConditionProgram();
}

/** A rule ready for evaluation; build it once per rule (change), evaluate it every tick. */
export type PreparedRule = (
  | {
      readonly kind: 'threshold';
      readonly root: PreparedCondition;
      readonly leaves: readonly PreparedLeaf[];
    }
  | {
      readonly kind: 'rate-change';
      readonly leaf: PreparedLeaf;
      /** The leaf's metric, and totalEvents, over the window before its window. */
      readonly previousSlot: number;
      readonly baselineSlot: number;
    }
  | { readonly kind: 'not-evaluated'; readonly ruleType: string }
) & {
  /** Its yes / no: where it starts in its set's program. */
  readonly program: ConditionProgram;
  readonly start: number;
  /**
   * Its yes / no while FIRING: the same condition with each leaf's recoveryThreshold in place of
   * its threshold (hysteresis); `start` itself when no leaf has one.
   */
  readonly recoveryStart: number;
};

const TOTAL_EVENTS: MetricRef = { kind: 'scalar', name: 'totalEvents' };

function prepareLeaf(
  leaf: ConditionLeaf,
  leaves: PreparedLeaf[],
  reads: WindowReads,
  activeSince: number,
): PreparedLeaf {
  const ref = parseMetricName(leaf.metric);
  if (ref === null) throw new Error(`Unvalidated ruleConfig: unknown metric '${leaf.metric}'`);
  const prepared: PreparedLeaf = {
    kind: 'leaf',
    metric: leaf.metric,
    ref,
    key: ref.kind === 'scalar' || ref.key === '' ? null : ref.key,
    operator: leaf.operator,
    threshold: leaf.threshold,
    recoveryThreshold: leaf.recoveryThreshold,
    windowMinutes: leaf.windowMinutes,
    slot: reads.slot(ref, leaf.windowMinutes, false, activeSince),
    index: leaves.length,
  };
  leaves.push(prepared);
  return prepared;
}

function prepareCondition(
  condition: Condition,
  leaves: PreparedLeaf[],
  set: PreparedSet,
  activeSince: number,
): PreparedCondition {
  if (!isConditionNode(condition)) {
    const leaf = prepareLeaf(condition, leaves, set.reads, activeSince);
    set.program.leaf(leaf.operator, leaf.slot, leaf.threshold);
    return leaf;
  }
  const at = set.program.open(condition.logicalOperator);
  const children = condition.conditions.map((c) => prepareCondition(c, leaves, set, activeSince));
  set.program.close(at);
  return { kind: condition.logicalOperator, children };
}

/** Emits a prepared condition again, each leaf with its recoveryThreshold (if any) as threshold. */
function emitRecovery(node: PreparedCondition, program: ConditionProgram): void {
  if (node.kind === 'leaf') {
    program.leaf(node.operator, node.slot, node.recoveryThreshold ?? node.threshold);
    return;
  }
  const at = program.open(node.kind);
  for (const child of node.children) emitRecovery(child, program);
  program.close(at);
}

/** A condition tree (THRESHOLD): its yes / no, and its recovery yes / no when a leaf has one. */
export function prepareConditionTree(
  config: Condition,
  set: PreparedSet,
  activeSince: number,
): PreparedRule {
  const { program } = set;
  const start = program.size;
  const leaves: PreparedLeaf[] = [];
  const root = prepareCondition(config, leaves, set, activeSince);
  let recoveryStart = start;
  if (leaves.some((l) => l.recoveryThreshold !== undefined)) {
    recoveryStart = program.size;
    emitRecovery(root, program);
  }
  return { kind: 'threshold', root, leaves, program, start, recoveryStart };
}

/** One leaf compared as the percent change between its window and the one before (RATE_CHANGE). */
export function prepareRateChange(
  config: ConditionLeaf,
  set: PreparedSet,
  activeSince: number,
): PreparedRule {
  const { program } = set;
  const start = program.size;
  const leaf = prepareLeaf(config, [], set.reads, activeSince);
  const previousSlot = set.reads.slot(leaf.ref, leaf.windowMinutes, true);
  const baselineSlot = set.reads.slot(TOTAL_EVENTS, leaf.windowMinutes, true);
  const slots = {
    current: leaf.slot,
    previous: previousSlot,
    baseline: baselineSlot,
  };
  program.rateChange(leaf.operator, leaf.threshold, slots);
  let recoveryStart = start;
  if (leaf.recoveryThreshold !== undefined) {
    recoveryStart = program.size;
    program.rateChange(leaf.operator, leaf.recoveryThreshold, slots);
  }
  return {
    kind: 'rate-change',
    leaf,
    previousSlot,
    baselineSlot,
    program,
    start,
    recoveryStart,
  };
}

/** A kind judged elsewhere (ANOMALY's series, PATTERN's matcher): never true in the program. */
export function prepareNever(ruleType: string, set: PreparedSet): PreparedRule {
  const start = set.program.size;
  set.program.never();
  return { kind: 'not-evaluated', ruleType, program: set.program, start, recoveryStart: start };
}

type RateChangeRule = Extract<PreparedRule, { kind: 'rate-change' }>;

/** The percent change with both values, or why there is none. */
function percentChange(
  rule: RateChangeRule,
  values: SlotValues,
): { current: number; previous: number; change: number | null; note?: string } {
  const { leaf } = rule;
  const w = leaf.windowMinutes;
  const current = values.get(leaf.slot);
  const previous = values.get(rule.previousSlot);
  if (values.get(rule.baselineSlot) === 0) {
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

/** The boolean path (the compiled program): short-circuits and allocates nothing. */
export const holds = (rule: PreparedRule, values: SlotValues): boolean =>
  rule.program.holds(rule.start, values);

/** The boolean path while the rule is FIRING: does it still hold, recovery thresholds applied? */
export const holdsWhileFiring = (rule: PreparedRule, values: SlotValues): boolean =>
  rule.program.holds(rule.recoveryStart, values);

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

function explainTree(
  node: PreparedCondition,
  values: readonly number[],
  recovering: boolean,
): ConditionExplanation {
  if (node.kind === 'leaf') return explainLeaf(node, values[node.index] ?? Number.NaN, recovering);
  return explainNode(
    node.kind,
    node.children.map((c) => explainTree(c, values, recovering)),
  );
}

/**
 * The detailed path: every value read once, the matched conditions, the explanation tree, and a
 * note when relevant. `recovering` (the rule is FIRING): compare with the recovery thresholds;
 * `wouldTrigger` then says whether it still holds.
 */
export function explainRule(
  rule: PreparedRule,
  slots: SlotValues,
  recovering = false,
): EvaluationResult {
  switch (rule.kind) {
    case 'threshold': {
      const values = rule.leaves.map((l) => slots.get(l.slot));
      const explanation = explainTree(rule.root, values, recovering);
      const wouldTrigger = explanation.result;
      const matchedConditions: string[] = [];
      if (wouldTrigger && truth(rule.root, values)) explain(rule.root, values, matchedConditions);
      return {
        wouldTrigger,
        matchedConditions,
        currentValues: valuesRecord(rule.leaves, values),
        explanation,
      };
    }
    case 'rate-change': {
      const { leaf } = rule;
      const { current, previous, change, note } = percentChange(rule, slots);
      const currentValues: Record<string, number> = {
        [leaf.metric]: current,
        [`previous(${leaf.metric})`]: previous,
      };
      if (change !== null) currentValues[`percentChange(${leaf.metric})`] = change;
      const explanation = explainLeaf(leaf, change, recovering, 'percentChange');
      const wouldTrigger = explanation.result;
      const matchedConditions =
        change !== null && compare(change, leaf.operator, leaf.threshold)
          ? [leafText(leaf, change, `percentChange(${leaf.metric})`)]
          : [];
      return note === undefined
        ? { wouldTrigger, matchedConditions, currentValues, explanation }
        : { wouldTrigger, matchedConditions, currentValues, note, explanation };
    }
    case 'not-evaluated':
      return {
        wouldTrigger: false,
        matchedConditions: [],
        currentValues: {},
        note: `${rule.ruleType} rules are not evaluated yet`,
        explanation: null,
      };
  }
}

/**
 * What evaluateKind needs of a rule kind (kinds/rule-kind.ts's RuleKind has it): named here, so that
 * this file and the kinds, which prepare their rules with its functions, do not import each other.
 */
export interface PreparingKind {
  readonly evaluation: {
    prepare(config: never, set: PreparedSet, activeSince: number): PreparedRule;
  };
}

export interface Alone {
  readonly kind: PreparingKind;
  readonly activeSince: number;
  readonly rule: PreparedRule;
  readonly reads: WindowReads;
}

/** Rules prepared alone (a set of one), by config object: a caller that keeps configs parses once. */
const prepared = new WeakMap<object, Alone>();

export function cachedPrepare(kind: PreparingKind, config: RuleConfig, activeSince: number): Alone {
  const hit = prepared.get(config);
  if (hit !== undefined && hit.kind === kind && hit.activeSince === activeSince) return hit;
  const set = new PreparedSet();
  const rule = kind.evaluation.prepare(config as never, set, activeSince);
  const alone = { kind, activeSince, rule, reads: set.reads };
  prepared.set(config, alone);
  return alone;
}

/** evaluateRule for a kind in hand (its rule test's simulation). */
export function evaluateKind(
  kind: PreparingKind,
  config: RuleConfig,
  metrics: WindowedMetrics,
  activeSince: number,
): EvaluationResult {
  const { rule, reads } = cachedPrepare(kind, config, activeSince);
  return explainRule(rule, metrics.valuesOf(reads));
}
