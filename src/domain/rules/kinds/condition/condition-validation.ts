/**
 * @module The condition tree's validator (THRESHOLD and RATE_CHANGE): names every problem with a
 * hint (the closest metric, operator or key) and returns the normalised tree.
 */
import { SEVERITIES } from '../../../event.ts';
import {
  INDEXED_METRICS,
  KEYED_SILENCE_METRICS,
  SCALAR_METRICS,
  SILENCE_METRICS,
  parseMetricName,
} from '../../../metrics/windows/metric-names.ts';
import {
  DEFAULT_WINDOW_MINUTES,
  LIFECYCLE_KEYS,
  LOGICAL_OPERATORS,
  MAX_CONDITIONS,
  MAX_CONDITION_DEPTH,
  MAX_LIFECYCLE_SECONDS,
  MAX_RATE_CHANGE_WINDOW_MINUTES,
  MAX_WINDOW_MINUTES,
  OPERATORS,
  OPERATOR_NAMES,
  type Condition,
  type ConditionLeaf,
  type LifecycleKeys,
  type LogicalOperator,
  type OperatorName,
} from '../../rule-types.ts';
import { suggest } from '../../../suggest.ts';
import type { RuleConfigValidation } from '../rule-kind.ts';

const LEAF_KEYS = [
  'metric',
  'operator',
  'threshold',
  'windowMinutes',
  'recoveryThreshold',
] as const;
const NODE_KEYS = ['logicalOperator', 'conditions', 'windowMinutes'] as const;
/** The side on which each operator's recoveryThreshold must lie; EQUALS / NOT_EQUALS have none. */
const RECOVERY_SIDE: Readonly<Partial<Record<OperatorName, 'below' | 'above'>>> = {
  GREATER_THAN: 'below',
  GREATER_THAN_OR_EQUAL: 'below',
  LESS_THAN: 'above',
  LESS_THAN_OR_EQUAL: 'above',
};

/** Spellings people reach for, mapped to the operator they mean. */
const OPERATOR_ALIASES: Readonly<Record<string, OperatorName>> = {
  '>': 'GREATER_THAN',
  GT: 'GREATER_THAN',
  '>=': 'GREATER_THAN_OR_EQUAL',
  GTE: 'GREATER_THAN_OR_EQUAL',
  GE: 'GREATER_THAN_OR_EQUAL',
  '<': 'LESS_THAN',
  LT: 'LESS_THAN',
  '<=': 'LESS_THAN_OR_EQUAL',
  LTE: 'LESS_THAN_OR_EQUAL',
  LE: 'LESS_THAN_OR_EQUAL',
  '==': 'EQUALS',
  '=': 'EQUALS',
  EQ: 'EQUALS',
  EQUAL: 'EQUALS',
  '!=': 'NOT_EQUALS',
  '<>': 'NOT_EQUALS',
  NE: 'NOT_EQUALS',
  NEQ: 'NOT_EQUALS',
};
const LOGICAL_ALIASES: Readonly<Record<string, LogicalOperator>> = {
  '&&': 'AND',
  '||': 'OR',
  '!': 'NOT',
};

const METRIC_LIST = [
  ...SCALAR_METRICS,
  'eventsByType[<eventType>]',
  'eventsBySource[<source>]',
  'eventsBySeverity[<SEVERITY>]',
  'secondsSinceLastEvent',
  'secondsSinceLastEventByType[<eventType>]',
  'secondsSinceLastEventBySource[<source>]',
].join(', ');

/** Metrics written with a key (`eventsByType[<key>]`, `secondsSinceLastEventBySource[<key>]`). */
const KEYED_METRICS: readonly string[] = [...INDEXED_METRICS, ...KEYED_SILENCE_METRICS];
const ALL_METRIC_NAMES: readonly string[] = [
  ...SCALAR_METRICS,
  ...INDEXED_METRICS,
  ...SILENCE_METRICS,
];

/** A value as it appears in a message: JSON, cut short; objects and arrays by their kind only. */
function show(value: unknown): string {
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'array' : 'object';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export const describeValue = (value: unknown): string =>
  value === null || typeof value === 'object'
    ? typeName(value)
    : `${typeName(value)} ${show(value)}`;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const hasOwn = (object: object, key: string): boolean =>
  Object.prototype.hasOwnProperty.call(object, key);

/** Checks a metric name; returns null when valid, else the message. */
export function metricProblem(metric: string): string | null {
  const ref = parseMetricName(metric);
  if (ref !== null) {
    // The severity map has a closed key set: any other key could never match an event.
    if (
      ref.kind === 'indexed' &&
      ref.map === 'eventsBySeverity' &&
      !(SEVERITIES as readonly string[]).includes(ref.key)
    ) {
      const close = suggest(ref.key, SEVERITIES);
      return close === null
        ? `Metric '${metric}' not found. Severities are ${SEVERITIES.join(', ')}`
        : `Metric '${metric}' not found. Did you mean 'eventsBySeverity[${close}]'?`;
    }
    return null;
  }
  const indexed = /^([^[]*)\[(.*)\]$/s.exec(metric);
  if (indexed !== null) {
    const map = indexed[1] ?? '';
    const key = indexed[2] ?? '';
    const close = KEYED_METRICS.includes(map) ? map : suggest(map, KEYED_METRICS);
    if (close !== null && key === '') {
      return `Metric '${metric}' needs a key, as in ${close}[<key>]`;
    }
    if (close !== null) {
      const fixed = `${close}[${key}]`;
      const problem = metricProblem(fixed);
      return problem ?? `Metric '${metric}' not found. Did you mean '${fixed}'?`;
    }
    return `Metric '${metric}' not found. Available metrics: ${METRIC_LIST}`;
  }
  if (KEYED_METRICS.includes(metric)) {
    return `Metric '${metric}' needs a key, as in ${metric}[<key>]`;
  }
  const close = suggest(metric, ALL_METRIC_NAMES);
  if (close === null) return `Metric '${metric}' not found. Available metrics: ${METRIC_LIST}`;
  const shown = KEYED_METRICS.includes(close) ? `${close}[<key>]` : close;
  return `Metric '${metric}' not found. Did you mean '${shown}'?`;
}

function operatorProblem(operator: string): string {
  const close =
    OPERATOR_ALIASES[operator.toUpperCase()] ?? suggest(operator, OPERATOR_NAMES) ?? null;
  return close === null
    ? `Invalid operator '${operator}'. Valid operators: ${OPERATOR_NAMES.join(', ')}`
    : `Invalid operator '${operator}'. Did you mean '${close}'?`;
}

function logicalProblem(operator: string): string {
  const close = LOGICAL_ALIASES[operator] ?? suggest(operator, LOGICAL_OPERATORS);
  return close === null
    ? `Invalid logical operator '${operator}'. Valid logical operators: ${LOGICAL_OPERATORS.join(', ')}`
    : `Invalid logical operator '${operator}'. Did you mean '${close}'?`;
}

/** Walks one config, collecting messages; each message is prefixed with its condition's path. */
class ConfigWalker {
  readonly errors: string[] = [];
  private count = 0;
  private tooMany = false;

  constructor(private readonly maxWindow: number) {}

  report(path: string, message: string): void {
    this.errors.push(path === '' ? message : `${path}: ${message}`);
  }

  unknownKeys(
    object: Record<string, unknown>,
    own: readonly string[],
    path: string,
    root: boolean,
  ): void {
    const known = root ? [...own, ...LIFECYCLE_KEYS] : own;
    for (const key of Object.keys(object)) {
      if (known.includes(key)) continue;
      if ((LIFECYCLE_KEYS as readonly string[]).includes(key)) {
        this.report(
          path,
          `${key} applies to the whole rule: set it on the top level of ruleConfig`,
        );
        continue;
      }
      const close = suggest(key, known);
      this.report(
        path,
        close === null
          ? `Unknown property '${key}'`
          : `Unknown property '${key}'. Did you mean '${close}'?`,
      );
    }
  }

  /** The window this object sets, else the inherited one; reports a bad value. */
  window(object: Record<string, unknown>, inherited: number, path: string): number {
    if (!hasOwn(object, 'windowMinutes')) return inherited;
    const value = object['windowMinutes'];
    if (
      typeof value === 'number' &&
      Number.isInteger(value) &&
      value >= 1 &&
      value <= this.maxWindow
    ) {
      return value;
    }
    this.report(
      path,
      `Invalid windowMinutes ${show(value)}: must be an integer from 1 to ${this.maxWindow}`,
    );
    return inherited;
  }

  condition(value: unknown, path: string, inherited: number, depth: number): Condition | null {
    if (++this.count > MAX_CONDITIONS) {
      if (!this.tooMany) this.report('', `Too many conditions: at most ${MAX_CONDITIONS}`);
      this.tooMany = true;
      return null;
    }
    if (!isPlainObject(value)) {
      this.report(path, `Condition must be an object, got ${describeValue(value)}`);
      return null;
    }
    return hasOwn(value, 'logicalOperator') || hasOwn(value, 'conditions')
      ? this.node(value, path, inherited, depth)
      : this.leaf(value, path, inherited, depth === 0);
  }

  /** pendingSeconds and keepFiringSeconds of the top level, as given (absent stays absent). */
  lifecycle(object: Record<string, unknown>, path: string): LifecycleKeys {
    const out: { pendingSeconds?: number; keepFiringSeconds?: number } = {};
    for (const key of LIFECYCLE_KEYS) {
      if (!hasOwn(object, key)) continue;
      const value = object[key];
      if (
        typeof value === 'number' &&
        Number.isInteger(value) &&
        value >= 0 &&
        value <= MAX_LIFECYCLE_SECONDS
      ) {
        out[key] = value + 0;
      } else {
        this.report(
          path,
          `Invalid ${key} ${show(value)}: must be an integer from 0 to ${MAX_LIFECYCLE_SECONDS}`,
        );
      }
    }
    return out;
  }

  /** A leaf's recoveryThreshold: a finite number on the resolving side of its threshold. */
  recovery(object: Record<string, unknown>, path: string): number | undefined {
    if (!hasOwn(object, 'recoveryThreshold')) return undefined;
    const value = object['recoveryThreshold'];
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.report(path, `Invalid recoveryThreshold ${show(value)}: expected a finite number`);
      return undefined;
    }
    const { operator, threshold } = object;
    if (typeof operator !== 'string' || typeof threshold !== 'number') return value + 0;
    const side = RECOVERY_SIDE[operator as OperatorName];
    if (side === undefined) {
      if (hasOwn(OPERATORS, operator))
        this.report(
          path,
          `recoveryThreshold needs an ordering operator (GREATER_THAN, GREATER_THAN_OR_EQUAL, LESS_THAN, LESS_THAN_OR_EQUAL), not ${operator}`,
        );
    } else if (side === 'below' ? value > threshold : value < threshold) {
      this.report(
        path,
        `recoveryThreshold ${show(value)} is on the wrong side of threshold ${show(threshold)}: with ${operator} the rule fires ${side === 'below' ? 'above' : 'below'} the threshold and resolves once the value is back past recoveryThreshold, so recoveryThreshold must be ${side === 'below' ? 'at most' : 'at least'} the threshold`,
      );
    }
    return value + 0;
  }

  leaf(
    object: Record<string, unknown>,
    path: string,
    inherited: number,
    root: boolean,
  ): ConditionLeaf | null {
    const before = this.errors.length;
    this.unknownKeys(object, LEAF_KEYS, path, root);
    const lifecycle = root ? this.lifecycle(object, path) : {};
    const recoveryThreshold = this.recovery(object, path);

    const metric = object['metric'];
    if (!hasOwn(object, 'metric')) this.report(path, `Missing required property 'metric'`);
    else if (typeof metric !== 'string') {
      this.report(path, `Property 'metric' must be a string, got ${describeValue(metric)}`);
    } else {
      const problem = metricProblem(metric);
      if (problem !== null) this.report(path, problem);
    }

    const operator = object['operator'];
    if (!hasOwn(object, 'operator')) this.report(path, `Missing required property 'operator'`);
    else if (typeof operator !== 'string') {
      this.report(path, `Property 'operator' must be a string, got ${describeValue(operator)}`);
    } else if (!hasOwn(OPERATORS, operator)) {
      this.report(path, operatorProblem(operator));
    }

    const threshold = object['threshold'];
    if (!hasOwn(object, 'threshold')) this.report(path, `Missing required property 'threshold'`);
    else if (typeof threshold !== 'number') {
      this.report(
        path,
        `Invalid threshold type: expected a number, got ${describeValue(threshold)}`,
      );
    } else if (!Number.isFinite(threshold)) {
      this.report(path, `Invalid threshold ${String(threshold)}: expected a finite number`);
    }

    const windowMinutes = this.window(object, inherited, path);
    if (this.errors.length > before) return null;
    return {
      metric: metric as string,
      operator: operator as OperatorName,
      // `+ 0` turns -0 into 0: JSON storage would do so anyway, and the DRL must not differ.
      threshold: (threshold as number) + 0,
      windowMinutes,
      ...(recoveryThreshold === undefined ? {} : { recoveryThreshold }),
      ...lifecycle,
    };
  }

  node(
    object: Record<string, unknown>,
    path: string,
    inherited: number,
    depth: number,
  ): Condition | null {
    const before = this.errors.length;
    if (depth >= MAX_CONDITION_DEPTH) {
      this.report(path, `Conditions nest deeper than ${MAX_CONDITION_DEPTH} levels`);
      return null;
    }
    this.unknownKeys(object, NODE_KEYS, path, depth === 0);
    const lifecycle = depth === 0 ? this.lifecycle(object, path) : {};

    let logical: LogicalOperator | null = null;
    const operator = object['logicalOperator'];
    if (!hasOwn(object, 'logicalOperator')) {
      this.report(path, `Missing required property 'logicalOperator'`);
    } else if (typeof operator !== 'string') {
      this.report(
        path,
        `Property 'logicalOperator' must be a string, got ${describeValue(operator)}`,
      );
    } else if (!(LOGICAL_OPERATORS as readonly string[]).includes(operator)) {
      this.report(path, logicalProblem(operator));
    } else {
      logical = operator as LogicalOperator;
    }

    const ownWindow = hasOwn(object, 'windowMinutes');
    const windowMinutes = this.window(object, inherited, path);

    const conditions = object['conditions'];
    const children: Condition[] = [];
    if (!hasOwn(object, 'conditions')) {
      this.report(path, `Missing required property 'conditions'`);
    } else if (!Array.isArray(conditions)) {
      this.report(path, `Property 'conditions' must be an array, got ${describeValue(conditions)}`);
    } else {
      if (logical === 'NOT' && conditions.length !== 1) {
        this.report(path, `NOT takes exactly one condition, got ${conditions.length}`);
      } else if (logical !== null && conditions.length === 0) {
        this.report(path, `${logical} needs at least one condition`);
      }
      const prefix = path === '' ? '' : `${path}.`;
      conditions.forEach((child: unknown, i) => {
        const normalised = this.condition(
          child,
          `${prefix}conditions[${i}]`,
          windowMinutes,
          depth + 1,
        );
        if (normalised !== null) children.push(normalised);
      });
    }

    if (this.errors.length > before || logical === null) return null;
    return ownWindow
      ? { logicalOperator: logical, conditions: children, windowMinutes, ...lifecycle }
      : { logicalOperator: logical, conditions: children, ...lifecycle };
  }
}

/**
 * THRESHOLD: a condition or a tree of AND / OR / NOT. On success every leaf carries its effective
 * `windowMinutes` (own, else nearest ancestor's, else 5). Messages of nested conditions start with
 * their path, e.g. `conditions[1].conditions[0]: …`.
 */
export function validateConditionTree(ruleConfig: Record<string, unknown>): RuleConfigValidation {
  const walker = new ConfigWalker(MAX_WINDOW_MINUTES);
  const condition = walker.condition(ruleConfig, '', DEFAULT_WINDOW_MINUTES, 0);
  return condition === null || walker.errors.length > 0
    ? { ok: false, errors: walker.errors }
    : { ok: true, config: condition };
}

/** RATE_CHANGE: one condition (window at most 720 min), on a metric that has a window. */
export function validateRateLeaf(ruleConfig: Record<string, unknown>): RuleConfigValidation {
  if (hasOwn(ruleConfig, 'logicalOperator') || hasOwn(ruleConfig, 'conditions')) {
    return {
      ok: false,
      errors: [
        'RATE_CHANGE takes a single condition { metric, operator, threshold, windowMinutes }; logical operators are for THRESHOLD rules',
      ],
    };
  }
  const walker = new ConfigWalker(MAX_RATE_CHANGE_WINDOW_MINUTES);
  const leaf = walker.leaf(ruleConfig, '', DEFAULT_WINDOW_MINUTES, true);
  if (leaf === null) return { ok: false, errors: walker.errors };
  if (parseMetricName(leaf.metric)?.kind === 'silence') {
    return {
      ok: false,
      errors: [
        `Metric '${leaf.metric}' cannot be used in a RATE_CHANGE rule: it is the time since the last event, not a value over a window to compare with the window before; use a THRESHOLD rule, e.g. ${leaf.metric} > 120`,
      ],
    };
  }
  return { ok: true, config: leaf };
}
