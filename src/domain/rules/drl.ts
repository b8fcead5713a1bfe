/**
 * @module The DRL of a rule (DESIGN 6): one deterministic template, its SHA-256 hash, and
 * "compiling" = parsing the text back and checking it yields the same rule and condition tree.
 */
import { createHash } from 'node:crypto';
import { parseDrl } from './drl-parser.ts';
import {
  DRL_HEADER,
  DRL_IMPORTS,
  DRL_PACKAGE,
  PERCENT_CHANGE_FUNCTION,
  VALUE_FUNCTION,
  javaDouble,
  javaString,
} from './drl-syntax.ts';
import {
  OPERATORS,
  conditionTree,
  isConditionNode,
  leaves,
  lifecycleOf,
  sameCondition,
  type Condition,
  type ConditionLeaf,
  type RuleConfig,
  type RuleType,
} from './rule-types.ts';
import type { RuleFields } from './rule.ts';
import { patternWhenLines, samePattern } from './pattern/pattern-drl.ts';
import { storedPatternConfig } from './pattern/pattern-validation.ts';
import { anomalyWhenLines, isAnomalyConfig, sameAnomalyWhen } from './anomaly/anomaly-drl.ts';

/** What the DRL is made of; nothing else of a rule (description, channels, throttling) is in it. */
export interface DrlRule extends Pick<RuleFields, 'name' | 'ruleType' | 'severity' | 'priority'> {
  /** Null for an unsaved rule (rule test). */
  readonly id: number | null;
  /** The normalised config from validateRuleConfig for `ruleType`. */
  readonly config: RuleConfig;
}

export type DrlCompilation =
  | { readonly ok: true; readonly drl: string; readonly hash: string }
  | { readonly ok: false; readonly error: string };

const INDENT = '    ';

function leafLine(leaf: ConditionLeaf, fn: string): string {
  const call = `$m.${fn}(${javaString(leaf.metric)}, ${leaf.windowMinutes})`;
  return `eval( ${call} ${OPERATORS[leaf.operator]} ${javaDouble(leaf.threshold)} )`;
}

/** AND / OR as Drools prefix `(and …)` / `(or …)`, NOT as `not( … )`, leaves as `eval( … )`. */
function conditionLines(condition: Condition, depth: number, out: string[]): void {
  const pad = INDENT.repeat(depth);
  if (!isConditionNode(condition)) {
    out.push(pad + leafLine(condition, VALUE_FUNCTION));
    return;
  }
  out.push(
    pad +
      (condition.logicalOperator === 'NOT'
        ? 'not('
        : `(${condition.logicalOperator.toLowerCase()}`),
  );
  for (const child of condition.conditions) conditionLines(child, depth + 1, out);
  out.push(`${pad})`);
}

function whenLines(ruleType: RuleType, config: RuleConfig): string[] {
  switch (ruleType) {
    case 'THRESHOLD': {
      const out: string[] = [];
      conditionLines(conditionTree(config as Condition), 2, out);
      return out;
    }
    case 'RATE_CHANGE':
      return [INDENT.repeat(2) + leafLine(config as ConditionLeaf, PERCENT_CHANGE_FUNCTION)];
    case 'PATTERN': {
      // A config stored before PATTERN rules were defined keeps the never-firing stub.
      const pattern = storedPatternConfig(config);
      if (pattern !== null) return patternWhenLines(pattern, INDENT.repeat(2));
      return notEvaluatedLines(ruleType);
    }
    case 'ANOMALY':
      // A rule stored before ANOMALY had keys keeps the stub (and its hash): it never fires.
      return isAnomalyConfig(config)
        ? anomalyWhenLines(config, INDENT.repeat(2))
        : notEvaluatedLines(ruleType);
  }
}

/** The never-firing stub of a rule stored before its type had keys. */
function notEvaluatedLines(ruleType: RuleType): string[] {
  return [
    `${INDENT.repeat(2)}// ${ruleType} rules are not evaluated yet: this rule never fires.`,
    `${INDENT.repeat(2)}eval( false )`,
  ];
}

/**
 * The lifecycle keys as rule attributes (absent when unset, so rules without them keep their DRL
 * and hash): `@pendingSeconds(60)`, `@keepFiringSeconds(30)`, and `@recoveryThreshold(i, 0.03)`
 * for the i-th leaf in document order.
 */
export function lifecycleLines(ruleType: RuleType, config: RuleConfig): string[] {
  if (ruleType === 'PATTERN') return [];
  const out: string[] = [];
  const keys = config as Condition;
  if (keys.pendingSeconds !== undefined) out.push(`@pendingSeconds(${keys.pendingSeconds})`);
  if (keys.keepFiringSeconds !== undefined)
    out.push(`@keepFiringSeconds(${keys.keepFiringSeconds})`);
  leaves(keys).forEach((leaf, i) => {
    if (leaf.recoveryThreshold !== undefined)
      out.push(`@recoveryThreshold(${i}, ${javaDouble(leaf.recoveryThreshold)})`);
  });
  return out.map((line) => INDENT + line);
}

/** The DRL text of a rule: same rule, same text, byte for byte. */
export function generateDrl(rule: DrlRule): string {
  const name = javaString(rule.name);
  const lines = [
    DRL_HEADER,
    `package ${DRL_PACKAGE};`,
    '',
    ...DRL_IMPORTS.map((i) => `import ${i};`),
    '',
    `rule ${name}`,
    `${INDENT}@ruleId(${rule.id ?? 'null'})`,
    `${INDENT}@ruleType(${javaString(rule.ruleType)})`,
    ...lifecycleLines(rule.ruleType, rule.config),
    `${INDENT}salience ${rule.priority}`,
    `${INDENT}no-loop true`,
    `${INDENT}when`,
    `${INDENT.repeat(2)}$m : MetricsSnapshot()`,
    ...whenLines(rule.ruleType, rule.config),
    `${INDENT}then`,
    `${INDENT.repeat(2)}insert(new Alert(${rule.id === null ? 'null' : `${rule.id}L`}, ${name}, ${javaString(rule.severity)}));`,
    'end',
    '',
  ];
  return lines.join('\n');
}

/** SHA-256 of the DRL text (UTF-8), lower-case hex. */
export const drlHash = (drl: string): string =>
  createHash('sha256').update(drl, 'utf8').digest('hex');

/** Why the parsed rule differs from the one it was generated from; null when it does not. */
function mismatch(rule: DrlRule, drl: string): string | null {
  const parsed = parseDrl(drl);
  if (!parsed.ok) return parsed.error;
  const back = parsed.rule;
  if (back.id !== rule.id) return 'the rule id did not survive';
  if (back.name !== rule.name) return 'the rule name did not survive';
  if (back.ruleType !== rule.ruleType) return 'the rule type did not survive';
  if (back.salience !== rule.priority) return 'the salience did not survive';
  if (back.severity !== rule.severity) return 'the severity did not survive';
  switch (rule.ruleType) {
    case 'THRESHOLD':
    case 'RATE_CHANGE': {
      const expected = conditionTree(rule.config as Condition);
      if (back.condition === null || !sameCondition(back.condition, expected)) {
        return 'the condition tree did not survive';
      }
      const { pendingSeconds, keepFiringSeconds } = lifecycleOf(rule.config);
      const lifecycle = back.lifecycle;
      if (
        (lifecycle?.pendingSeconds ?? 0) !== pendingSeconds ||
        (lifecycle?.keepFiringSeconds ?? 0) !== keepFiringSeconds
      )
        return 'the lifecycle attributes did not survive';
      const recovery = leaves(rule.config as Condition).map((l) => l.recoveryThreshold);
      if (recovery.some((r, i) => !Object.is(r, lifecycle?.recoveryThresholds[i])))
        return 'the recovery thresholds did not survive';
      return null;
    }
    case 'PATTERN': {
      const pattern = storedPatternConfig(rule.config);
      if (pattern === null)
        return back.condition === null && back.pattern === undefined
          ? null
          : 'the stub condition did not survive';
      return back.pattern !== undefined && samePattern(back.pattern, pattern)
        ? null
        : 'the pattern did not survive';
    }
    case 'ANOMALY': {
      if (!isAnomalyConfig(rule.config))
        return back.condition === null && back.anomaly === undefined
          ? null
          : 'the stub condition did not survive';
      const { pendingSeconds, keepFiringSeconds } = lifecycleOf(rule.config);
      if (
        (back.lifecycle?.pendingSeconds ?? 0) !== pendingSeconds ||
        (back.lifecycle?.keepFiringSeconds ?? 0) !== keepFiringSeconds
      )
        return 'the lifecycle attributes did not survive';
      return back.anomaly !== undefined && sameAnomalyWhen(back.anomaly, rule.config)
        ? null
        : 'the ANOMALY series and band did not survive';
    }
  }
}

/** Generates the DRL, parses it back and compares; the error is the spec's compile failure. */
export function compileDrl(rule: DrlRule): DrlCompilation {
  const drl = generateDrl(rule);
  const problem = mismatch(rule, drl);
  return problem === null
    ? { ok: true, drl, hash: drlHash(drl) }
    : { ok: false, error: `Generated DRL failed to compile: ${problem}` };
}
