/**
 * @module Parser for exactly the DRL subset that drl.ts emits: one rule with its id, type,
 * salience, condition tree and alert action. "Compiling" a rule is generating and parsing back.
 */
import { DRL_IMPORTS, DRL_PACKAGE, VALUE_FUNCTION } from './drl-syntax.ts';
import { ruleKinds, type RuleKindRegistry } from './kinds/registry.ts';
import type { DrlWhenReader } from './kinds/rule-kind.ts';
import {
  MAX_CONDITION_DEPTH,
  OPERATORS,
  RULE_SEVERITIES,
  type Condition,
  type ConditionLeaf,
  type LogicalOperator,
  type OperatorName,
} from './rule-types.ts';

export type { DrlParseResult, ParsedDrl, ParsedLifecycle } from './drl-parsed.ts';
import type { DrlParseResult, ParsedDrl } from './drl-parsed.ts';

type TokenKind = 'ident' | 'string' | 'number' | 'punct' | 'eof';
interface Token {
  readonly kind: TokenKind;
  /** Identifier or punctuation as written; a string's decoded value; a number's source text. */
  readonly text: string;
  readonly line: number;
}

class DrlSyntaxError extends Error {}

const KIND_NAMES: Readonly<Record<TokenKind, string>> = {
  ident: 'an identifier',
  string: 'a string literal',
  number: 'a number',
  punct: 'punctuation',
  eof: 'the end of the DRL',
};

const PUNCTUATION = ['>=', '<=', '==', '!=', '>', '<', '(', ')', ';', '.', ':', ',', '@'] as const;
const SYMBOL_TO_OPERATOR = new Map<string, OperatorName>(
  Object.entries(OPERATORS).map(([name, symbol]) => [symbol, name as OperatorName]),
);
const IDENT = /[A-Za-z_$][A-Za-z0-9_$]*(?:-[A-Za-z]+)*/y;
const NUMBER = /-?(?:\d+)(?:\.\d+)?(?:[eE][+-]?\d+)?L?/y;
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
};

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let i = 0;
  function fail(message: string): never {
    throw new DrlSyntaxError(`line ${line}: ${message}`);
  }
  while (i < text.length) {
    const c = text.charAt(i);
    if (c === '\n') {
      line++;
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      i++;
    } else if (text.startsWith('//', i)) {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
    } else if (c === '"') {
      let value = '';
      i++;
      for (;;) {
        const d = text.charAt(i);
        if (d === '' || d === '\n' || d === '\r') fail('unterminated string literal');
        if (d === '"') break;
        if (d.charCodeAt(0) < 0x20) fail('control character in string literal');
        if (d !== '\\') {
          value += d;
          i++;
          continue;
        }
        const e = text.charAt(i + 1);
        const simple = SIMPLE_ESCAPES[e];
        if (simple !== undefined) {
          value += simple;
          i += 2;
        } else if (e === 'u' && /^[0-9A-Fa-f]{4}$/.test(text.slice(i + 2, i + 6))) {
          value += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
        } else {
          fail(`invalid escape '\\${e}' in string literal`);
        }
      }
      i++;
      tokens.push({ kind: 'string', text: value, line });
    } else if (/[-0-9]/.test(c)) {
      NUMBER.lastIndex = i;
      const match = NUMBER.exec(text);
      if (match === null) fail(`unexpected '${c}'`);
      tokens.push({ kind: 'number', text: match[0], line });
      i += match[0].length;
    } else if (/[A-Za-z_$]/.test(c)) {
      IDENT.lastIndex = i;
      const word = IDENT.exec(text)?.[0] ?? fail(`unexpected '${c}'`);
      tokens.push({ kind: 'ident', text: word, line });
      i += word.length;
    } else {
      const punct = PUNCTUATION.find((p) => text.startsWith(p, i));
      if (punct === undefined) fail(`unexpected character '${c}'`);
      tokens.push({ kind: 'punct', text: punct, line });
      i += punct.length;
    }
  }
  tokens.push({ kind: 'eof', text: 'end of the DRL', line });
  return tokens;
}

class Parser implements DrlWhenReader {
  private at = 0;
  constructor(
    private readonly tokens: readonly Token[],
    private readonly kinds: RuleKindRegistry,
  ) {}

  private peek(): Token {
    return this.tokens[this.at] ?? { kind: 'eof', text: 'end of the DRL', line: 0 };
  }

  fail(expected: string): never {
    const token = this.peek();
    const got = token.kind === 'string' ? JSON.stringify(token.text) : `'${token.text}'`;
    throw new DrlSyntaxError(`line ${token.line}: expected ${expected}, got ${got}`);
  }

  take(kind: TokenKind, text?: string): Token {
    const token = this.peek();
    if (token.kind !== kind || (text !== undefined && token.text !== text)) {
      this.fail(text === undefined ? KIND_NAMES[kind] : `'${text}'`);
    }
    this.at++;
    return token;
  }

  is(kind: TokenKind, text: string): boolean {
    const token = this.peek();
    return token.kind === kind && token.text === text;
  }

  /** `a.b.c` checked against the expected name. */
  private qualifiedName(expected: string): void {
    const parts = expected.split('.');
    parts.forEach((part, i) => {
      if (i > 0) this.take('punct', '.');
      this.take('ident', part);
    });
  }

  private integer(allowLong: boolean): number {
    const token = this.take('number');
    const match = /^(-?\d+)(L?)$/.exec(token.text);
    if (match === null || (match[2] === 'L' && !allowLong)) this.fail('an integer');
    const value = Number(match[1]);
    if (!Number.isSafeInteger(value)) this.fail('a safe integer');
    return value;
  }

  /** An id: an integer (with `L` in Java code) or `null` for an unsaved rule. */
  private id(long: boolean): number | null {
    if (this.is('ident', 'null')) {
      this.at++;
      return null;
    }
    const token = this.peek();
    const value = this.integer(long);
    if (long !== token.text.endsWith('L')) this.fail(long ? 'a long literal' : 'an int literal');
    return value;
  }

  parse(): ParsedDrl {
    this.take('ident', 'package');
    this.qualifiedName(DRL_PACKAGE);
    this.take('punct', ';');
    for (const name of DRL_IMPORTS) {
      this.take('ident', 'import');
      this.qualifiedName(name);
      this.take('punct', ';');
    }
    this.take('ident', 'rule');
    const name = this.take('string').text;
    this.take('punct', '@');
    this.take('ident', 'ruleId');
    this.take('punct', '(');
    const id = this.id(false);
    this.take('punct', ')');
    this.take('punct', '@');
    this.take('ident', 'ruleType');
    this.take('punct', '(');
    const typeToken = this.take('string');
    const ruleType = typeToken.text;
    if (!this.kinds.has(ruleType))
      throw new DrlSyntaxError(`line ${typeToken.line}: unknown rule type`);
    this.take('punct', ')');
    const lifecycle = this.lifecycleAttributes();
    this.take('ident', 'salience');
    const salience = this.integer(false);
    this.take('ident', 'no-loop');
    this.take('ident', 'true');
    this.take('ident', 'when');
    this.take('ident', '$m');
    this.take('punct', ':');
    this.take('ident', 'MetricsSnapshot');
    this.take('punct', '(');
    this.take('punct', ')');
    const { condition, pattern, anomaly } = this.kinds.get(ruleType).drl.parseWhen(this);
    this.take('ident', 'then');
    this.take('ident', 'insert');
    this.take('punct', '(');
    this.take('ident', 'new');
    this.take('ident', 'Alert');
    this.take('punct', '(');
    const alertId = this.id(true);
    this.take('punct', ',');
    const alertName = this.take('string');
    this.take('punct', ',');
    const severityToken = this.take('string');
    this.take('punct', ')');
    this.take('punct', ')');
    this.take('punct', ';');
    this.take('ident', 'end');
    this.take('eof');

    const severity = RULE_SEVERITIES.find((s) => s === severityToken.text);
    if (severity === undefined)
      throw new DrlSyntaxError(`line ${severityToken.line}: unknown severity`);
    if (alertId !== id) throw new DrlSyntaxError('the alert id differs from @ruleId');
    if (alertName.text !== name)
      throw new DrlSyntaxError('the alert name differs from the rule name');
    const recoveryThresholds: (number | undefined)[] = [];
    const count = condition === null ? 0 : countLeaves(condition);
    for (let i = 0; i < count; i++) recoveryThresholds.push(lifecycle.recovery.get(i));
    if ([...lifecycle.recovery.keys()].some((i) => i >= count))
      throw new DrlSyntaxError('a @recoveryThreshold names a condition the rule does not have');
    const rule = {
      id,
      name,
      ruleType,
      salience,
      severity,
      condition,
      ...(pattern === undefined ? {} : { pattern }),
      ...(anomaly === undefined ? {} : { anomaly }),
    };
    if (!lifecycle.present) return rule;
    const { pendingSeconds, keepFiringSeconds } = lifecycle;
    return { ...rule, lifecycle: { pendingSeconds, keepFiringSeconds, recoveryThresholds } };
  }

  /** `@pendingSeconds(n)`, `@keepFiringSeconds(n)`, `@recoveryThreshold(leaf, x)`, in that order. */
  private lifecycleAttributes(): {
    present: boolean;
    pendingSeconds: number;
    keepFiringSeconds: number;
    recovery: Map<number, number>;
  } {
    const out = {
      present: this.is('punct', '@'),
      pendingSeconds: 0,
      keepFiringSeconds: 0,
      recovery: new Map<number, number>(),
    };
    for (const key of ['pendingSeconds', 'keepFiringSeconds'] as const) {
      if (!this.is('punct', '@') || this.tokens[this.at + 1]?.text !== key) continue;
      this.take('punct', '@');
      this.take('ident', key);
      this.take('punct', '(');
      out[key] = this.integer(false);
      this.take('punct', ')');
    }
    while (this.is('punct', '@')) {
      this.take('punct', '@');
      this.take('ident', 'recoveryThreshold');
      this.take('punct', '(');
      const leaf = this.integer(false);
      this.take('punct', ',');
      const number = this.take('number');
      if (number.text.endsWith('L')) this.fail('a double literal');
      this.take('punct', ')');
      out.recovery.set(leaf, Number(number.text));
    }
    return out;
  }

  peekText(ahead: number): string | undefined {
    return this.tokens[this.at + ahead]?.text;
  }

  conditionTree(): Condition {
    return this.condition(0);
  }

  failAt(line: number, message: string): never {
    throw new DrlSyntaxError(`line ${line}: ${message}`);
  }

  private condition(depth: number): Condition {
    if (depth > MAX_CONDITION_DEPTH) this.fail('a shallower condition');
    if (this.is('ident', 'eval')) return this.evalLeaf(VALUE_FUNCTION);
    if (this.is('ident', 'not')) {
      this.at++;
      this.take('punct', '(');
      const inner = this.condition(depth + 1);
      this.take('punct', ')');
      return { logicalOperator: 'NOT', conditions: [inner] };
    }
    this.take('punct', '(');
    const word = this.take('ident').text;
    if (word !== 'and' && word !== 'or') {
      this.at--;
      this.fail(`'and' or 'or'`);
    }
    const conditions: Condition[] = [];
    do conditions.push(this.condition(depth + 1));
    while (!this.is('punct', ')'));
    this.take('punct', ')');
    return { logicalOperator: word.toUpperCase() as LogicalOperator, conditions };
  }

  /** `eval( $m.<fn>("<metric>", <window>) <op> <threshold> )` */
  evalLeaf(fn: string): ConditionLeaf {
    this.take('ident', 'eval');
    this.take('punct', '(');
    this.take('ident', '$m');
    this.take('punct', '.');
    this.take('ident', fn);
    this.take('punct', '(');
    const metric = this.take('string').text;
    this.take('punct', ',');
    const windowMinutes = this.integer(false);
    this.take('punct', ')');
    const symbol = this.take('punct').text;
    const operator = SYMBOL_TO_OPERATOR.get(symbol);
    if (operator === undefined) {
      this.at--;
      this.fail('a comparison operator');
    }
    const number = this.take('number');
    if (number.text.endsWith('L')) this.fail('a double literal');
    this.take('punct', ')');
    return { metric, operator, threshold: Number(number.text), windowMinutes };
  }
}

const countLeaves = (condition: Condition): number =>
  'logicalOperator' in condition ? condition.conditions.reduce((n, c) => n + countLeaves(c), 0) : 1;

/** Parses DRL text of the emitted subset; any deviation is an error naming the line. */
export function parseDrl(text: string, kinds: RuleKindRegistry = ruleKinds()): DrlParseResult {
  try {
    return { ok: true, rule: new Parser(tokenize(text), kinds).parse() };
  } catch (error) {
    if (error instanceof DrlSyntaxError) return { ok: false, error: error.message };
    throw error;
  }
}
