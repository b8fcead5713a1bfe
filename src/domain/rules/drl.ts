/**
 * @module The DRL of a rule (DESIGN 6): one deterministic template, its SHA-256 hash, and
 * "compiling" = parsing the text back and checking it yields the same rule and condition tree.
 */
import { createHash } from 'node:crypto';
import { parseDrl } from './drl-parser.ts';
import { DRL_HEADER, DRL_IMPORTS, DRL_PACKAGE, javaString } from './drl-syntax.ts';
import { ruleKinds, type RuleKindRegistry } from './kinds/registry.ts';
import type { RuleConfig } from './rule-types.ts';
import type { RuleFields } from './rule.ts';

/** What the DRL is made of; nothing else of a rule (description, channels, throttling) is in it. */
export interface DrlRule extends Pick<RuleFields, 'name' | 'severity' | 'priority'> {
  /** A RuleType, or the type of a kind of another registry. */
  readonly ruleType: string;
  /** Null for an unsaved rule (rule test). */
  readonly id: number | null;
  /** The normalised config from validateRuleConfig for `ruleType`. */
  readonly config: RuleConfig;
}

export type DrlCompilation =
  | { readonly ok: true; readonly drl: string; readonly hash: string }
  | { readonly ok: false; readonly error: string };

const INDENT = '    ';

/** The DRL text of a rule: same rule, same text, byte for byte. */
export function generateDrl(rule: DrlRule, kinds: RuleKindRegistry = ruleKinds()): string {
  const kind = kinds.get(rule.ruleType);
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
    ...kind.drl.attributes(rule.config).map((line) => INDENT + line),
    `${INDENT}salience ${rule.priority}`,
    `${INDENT}no-loop true`,
    `${INDENT}when`,
    `${INDENT.repeat(2)}$m : MetricsSnapshot()`,
    ...kind.drl.when(rule.config, INDENT.repeat(2)),
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
function mismatch(rule: DrlRule, drl: string, kinds: RuleKindRegistry): string | null {
  const parsed = parseDrl(drl, kinds);
  if (!parsed.ok) return parsed.error;
  const back = parsed.rule;
  if (back.id !== rule.id) return 'the rule id did not survive';
  if (back.name !== rule.name) return 'the rule name did not survive';
  if (back.ruleType !== rule.ruleType) return 'the rule type did not survive';
  if (back.salience !== rule.priority) return 'the salience did not survive';
  if (back.severity !== rule.severity) return 'the severity did not survive';
  return kinds.get(rule.ruleType).drl.survived(rule.config, back);
}

/** Generates the DRL, parses it back and compares; the error is the spec's compile failure. */
export function compileDrl(rule: DrlRule, kinds: RuleKindRegistry = ruleKinds()): DrlCompilation {
  const drl = generateDrl(rule, kinds);
  const problem = mismatch(rule, drl, kinds);
  return problem === null
    ? { ok: true, drl, hash: drlHash(drl) }
    : { ok: false, error: `Generated DRL failed to compile: ${problem}` };
}
