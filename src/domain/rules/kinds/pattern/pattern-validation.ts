/**
 * @module Validation of a PATTERN ruleConfig: every key checked, unknown ones answered with the
 * closest known one ("Did you mean 'withinMinutes'?"), every message prefixed with its path
 * (`steps[1].where[0]: ...`) and saying what would be accepted. Returns the normalised config
 * (defaults filled in), which the matcher, the DRL and the rule test read.
 */
import { SEVERITIES } from '../../../event.ts';
import {
  MAX_LIFECYCLE_SECONDS,
  OPERATORS,
  OPERATOR_NAMES,
  type OperatorName,
} from '../../rule-types.ts';
import { suggest } from '../../../suggest.ts';
import {
  ABSENT_KEYS,
  CONDITION_KEYS,
  CONTIGUITIES,
  DEFAULT_MAX_PARTITIONS,
  EVENT_FIELDS,
  MAX_MAX_PARTITIONS,
  MAX_PATTERN_MINUTES,
  MAX_PATTERN_STEPS,
  MAX_STEP_TIMES,
  MAX_WHERE_CONDITIONS,
  MIN_PATTERN_MINUTES,
  PARTITION_FIELDS,
  PATTERN_KEYS,
  STEP_KEYS,
  type Contiguity,
  type PartitionField,
  type PatternAbsent,
  type PatternCondition,
  type PatternConfig,
  type PatternStep,
  type PatternValue,
} from './pattern-config.ts';

export type PatternValidation =
  | { readonly ok: true; readonly config: PatternConfig }
  | { readonly ok: false; readonly errors: readonly string[] };

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'array' : 'object';
  const text = JSON.stringify(value) ?? typeof value;
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

const ORDERING: ReadonlySet<OperatorName> = new Set([
  'GREATER_THAN',
  'GREATER_THAN_OR_EQUAL',
  'LESS_THAN',
  'LESS_THAN_OR_EQUAL',
]);

/** A tag key or metadata path segment: what producers send, and what a dotted path can spell. */
const PATH_PART = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_EVENT_TYPE = 100;

/** The operator meant by `>=`, `gte` or `GREATER_EQUAL`, for the message. */
function operatorProblem(operator: string): string {
  const symbol = OPERATOR_NAMES.find((name) => OPERATORS[name] === operator);
  const close = symbol ?? suggest(operator, OPERATOR_NAMES);
  return close === null
    ? `Invalid operator '${operator}'. Valid operators: ${OPERATOR_NAMES.join(', ')}`
    : `Invalid operator '${operator}'. Did you mean '${close}'?`;
}

class PatternWalker {
  readonly errors: string[] = [];

  report(path: string, message: string): void {
    this.errors.push(path === '' ? message : `${path}: ${message}`);
  }

  unknownKeys(object: Json, known: readonly string[], path: string): void {
    for (const key of Object.keys(object)) {
      if (known.includes(key)) continue;
      if (key === 'pendingSeconds' && path === '') {
        this.report(
          path,
          'pendingSeconds does not apply to PATTERN rules: a completed sequence is an event, not a condition that holds for a while; use steps[].times to ask for repeats',
        );
        continue;
      }
      const close = suggest(key, known);
      this.report(
        path,
        close === null
          ? `Unknown property '${key}'. Known properties: ${known.join(', ')}`
          : `Unknown property '${key}'. Did you mean '${close}'?`,
      );
    }
  }

  minutes(object: Json, key: string, path: string, required: boolean): number {
    const value = object[key];
    if (value === undefined && !required) return Number.NaN;
    if (
      typeof value === 'number' &&
      Number.isFinite(value) &&
      value >= MIN_PATTERN_MINUTES &&
      value <= MAX_PATTERN_MINUTES
    )
      return value + 0;
    this.report(
      path,
      value === undefined
        ? `${key} is required: the longest time, in minutes, from the first event of a sequence to its last (at most ${MAX_PATTERN_MINUTES})`
        : `Invalid ${key} ${show(value)}: must be a number of minutes from 1/60 (one second) to ${MAX_PATTERN_MINUTES}`,
    );
    return Number.NaN;
  }

  integer(
    object: Json,
    key: string,
    path: string,
    min: number,
    max: number,
    fallback: number,
  ): number {
    const value = object[key];
    if (value === undefined) return fallback;
    if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max)
      return value + 0;
    this.report(path, `Invalid ${key} ${show(value)}: must be an integer from ${min} to ${max}`);
    return fallback;
  }

  partitionBy(value: unknown): PartitionField | null {
    if (typeof value === 'string') {
      if ((PARTITION_FIELDS as readonly string[]).includes(value)) return value as PartitionField;
      if (value.startsWith('tags.') && PATH_PART.test(value.slice(5)))
        return value as PartitionField;
    }
    const choices = [...PARTITION_FIELDS, 'tags.<key>'];
    const close = typeof value === 'string' ? suggest(value, PARTITION_FIELDS) : null;
    this.report(
      '',
      value === undefined
        ? `partitionBy is required: the event field whose value keeps sequences apart, one of ${choices.join(', ')}`
        : close !== null
          ? `Invalid partitionBy ${show(value)}. Did you mean '${close}'?`
          : `Invalid partitionBy ${show(value)}: must be one of ${choices.join(', ')}`,
    );
    return null;
  }

  eventType(object: Json, path: string): string {
    const value = object['eventType'];
    if (typeof value === 'string' && value.trim() !== '' && value.length <= MAX_EVENT_TYPE)
      return value;
    this.report(
      path,
      value === undefined
        ? 'eventType is required: the type of event this step matches'
        : `Invalid eventType ${show(value)}: must be a non-empty string of at most ${MAX_EVENT_TYPE} characters`,
    );
    return '';
  }

  field(value: unknown, path: string): string | null {
    if (typeof value !== 'string') {
      this.report(
        path,
        `field must be a string such as 'source', 'tags.<key>' or 'metadata.<path>', got ${show(value)}`,
      );
      return null;
    }
    if ((EVENT_FIELDS as readonly string[]).includes(value)) return value;
    const dot = value.indexOf('.');
    const head = dot < 0 ? value : value.slice(0, dot);
    const rest = dot < 0 ? [] : value.slice(dot + 1).split('.');
    if ((head === 'tags' && rest.length === 1) || (head === 'metadata' && rest.length >= 1)) {
      if (rest.length <= 8 && rest.every((part) => PATH_PART.test(part))) return value;
      this.report(
        path,
        `Invalid field '${value}': each part after '${head}.' is 1 to 64 letters, digits, '_' or '-'${head === 'metadata' ? ', at most 8 parts' : ''}`,
      );
      return null;
    }
    if (head === 'tags' || head === 'metadata') {
      this.report(path, `Invalid field '${value}': write ${head}.<key>, e.g. ${head}.region`);
      return null;
    }
    const close = suggest(head, [...EVENT_FIELDS, 'tags', 'metadata']);
    const fixed =
      close === null ? null : close === 'tags' || close === 'metadata' ? `${close}.<key>` : close;
    this.report(
      path,
      fixed === null
        ? `Unknown field '${value}'. Fields: ${EVENT_FIELDS.join(', ')}, tags.<key>, metadata.<path>`
        : `Unknown field '${value}'. Did you mean '${fixed}'?`,
    );
    return null;
  }

  condition(value: unknown, path: string): PatternCondition | null {
    if (!isObject(value)) {
      this.report(
        path,
        `A where condition must be an object { field, operator, value }, got ${show(value)}`,
      );
      return null;
    }
    const before = this.errors.length;
    this.unknownKeys(value, CONDITION_KEYS, path);
    const field = this.field(value['field'], path);
    const rawOperator = value['operator'];
    let operator: OperatorName | null = null;
    if (typeof rawOperator === 'string' && Object.hasOwn(OPERATORS, rawOperator))
      operator = rawOperator as OperatorName;
    else
      this.report(
        path,
        typeof rawOperator === 'string'
          ? operatorProblem(rawOperator)
          : `operator is required, one of ${Object.keys(OPERATORS).join(', ')}`,
      );
    const raw = value['value'];
    let compared: PatternValue = null;
    if (raw === undefined) this.report(path, 'value is required: what the field is compared with');
    else if (
      raw === null ||
      typeof raw === 'string' ||
      typeof raw === 'boolean' ||
      (typeof raw === 'number' && Number.isFinite(raw))
    )
      compared = typeof raw === 'number' ? raw + 0 : raw;
    else
      this.report(
        path,
        `Invalid value ${show(raw)}: must be a string, a finite number, true, false or null`,
      );
    if (operator !== null && ORDERING.has(operator) && raw !== undefined && typeof raw !== 'number')
      this.report(path, `${operator} compares numbers: value must be a number, got ${show(raw)}`);
    if (
      field === 'severity' &&
      typeof raw === 'string' &&
      !(SEVERITIES as readonly string[]).includes(raw)
    ) {
      const close = suggest(raw, SEVERITIES);
      this.report(
        path,
        close === null
          ? `Invalid severity ${show(raw)}: severities are ${SEVERITIES.join(', ')}`
          : `Invalid severity ${show(raw)}. Did you mean '${close}'?`,
      );
    }
    if (this.errors.length > before || field === null || operator === null) return null;
    return { field, operator, value: compared };
  }

  where(object: Json, path: string): PatternCondition[] {
    const value = object['where'];
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      this.report(
        path,
        `where must be an array of conditions { field, operator, value }, got ${show(value)}`,
      );
      return [];
    }
    if (value.length > MAX_WHERE_CONDITIONS) {
      this.report(path, `where has ${value.length} conditions: at most ${MAX_WHERE_CONDITIONS}`);
      return [];
    }
    const out: PatternCondition[] = [];
    value.forEach((c, i) => {
      const condition = this.condition(c, `${path}${path === '' ? '' : '.'}where[${i}]`);
      if (condition !== null) out.push(condition);
    });
    return out;
  }

  times(object: Json, path: string): number {
    const value = object['times'];
    if (value === undefined) return 1;
    if (!isObject(value)) {
      this.report(path, `times must be an object { min }, got ${show(value)}`);
      return 1;
    }
    this.unknownKeys(value, ['min'], `${path}.times`);
    return this.integer(value, 'min', `${path}.times`, 1, MAX_STEP_TIMES, 1);
  }

  contiguity(object: Json, path: string): Contiguity {
    const value = object['contiguity'];
    if (value === undefined) return 'relaxed';
    if (value === 'relaxed' || value === 'strict') return value;
    const close = typeof value === 'string' ? suggest(value, CONTIGUITIES) : null;
    this.report(
      path,
      close === null
        ? `Invalid contiguity ${show(value)}: must be 'relaxed' (other events may come between) or 'strict' (none may)`
        : `Invalid contiguity ${show(value)}. Did you mean '${close}'?`,
    );
    return 'relaxed';
  }

  step(value: unknown, path: string): PatternStep | null {
    if (!isObject(value)) {
      this.report(
        path,
        `A step must be an object { eventType, where, times, contiguity }, got ${show(value)}`,
      );
      return null;
    }
    const before = this.errors.length;
    this.unknownKeys(value, STEP_KEYS, path);
    const step: PatternStep = {
      eventType: this.eventType(value, path),
      where: this.where(value, path),
      times: { min: this.times(value, path) },
      contiguity: this.contiguity(value, path),
    };
    return this.errors.length > before ? null : step;
  }

  absent(value: unknown): PatternAbsent | null {
    if (!isObject(value)) {
      this.report(
        'absent',
        `absent must be an object { eventType, where, withinMinutes }, got ${show(value)}`,
      );
      return null;
    }
    const before = this.errors.length;
    this.unknownKeys(value, ABSENT_KEYS, 'absent');
    const eventType = this.eventType(value, 'absent');
    const where = this.where(value, 'absent');
    const withinMinutes = this.minutes(value, 'withinMinutes', 'absent', true);
    return this.errors.length > before ? null : { eventType, where, withinMinutes };
  }
}

/** Validates a PATTERN ruleConfig (docs/rules.md, PATTERN). */
export function validatePatternConfig(ruleConfig: Json): PatternValidation {
  const walker = new PatternWalker();
  walker.unknownKeys(ruleConfig, PATTERN_KEYS, '');
  const partitionBy = walker.partitionBy(ruleConfig['partitionBy']);
  const withinMinutes = walker.minutes(ruleConfig, 'withinMinutes', '', true);
  const rawSteps = ruleConfig['steps'];
  const steps: PatternStep[] = [];
  if (!Array.isArray(rawSteps) || rawSteps.length === 0 || rawSteps.length > MAX_PATTERN_STEPS) {
    walker.report(
      '',
      rawSteps === undefined
        ? `steps is required: 1 to ${MAX_PATTERN_STEPS} steps, each { eventType, where, times, contiguity }`
        : `Invalid steps ${Array.isArray(rawSteps) ? `(${rawSteps.length} steps)` : show(rawSteps)}: must be an array of 1 to ${MAX_PATTERN_STEPS} steps`,
    );
  } else {
    rawSteps.forEach((raw, i) => {
      const step = walker.step(raw, `steps[${i}]`);
      if (step !== null) steps.push(step);
    });
  }
  const absent =
    ruleConfig['absent'] === undefined || ruleConfig['absent'] === null
      ? undefined
      : walker.absent(ruleConfig['absent']);
  const maxPartitions = walker.integer(
    ruleConfig,
    'maxPartitions',
    '',
    1,
    MAX_MAX_PARTITIONS,
    DEFAULT_MAX_PARTITIONS,
  );
  const keepFiringSeconds = walker.integer(
    ruleConfig,
    'keepFiringSeconds',
    '',
    0,
    MAX_LIFECYCLE_SECONDS,
    -1,
  );
  if (walker.errors.length > 0 || partitionBy === null || absent === null)
    return { ok: false, errors: walker.errors };
  return {
    ok: true,
    config: {
      partitionBy,
      withinMinutes,
      steps,
      ...(absent === undefined ? {} : { absent }),
      maxPartitions,
      ...(keepFiringSeconds < 0 ? {} : { keepFiringSeconds }),
    },
  };
}

/**
 * A stored PATTERN config as the matcher reads it, or null for one stored before PATTERN rules
 * were defined (any object was accepted then): such a rule is kept but never evaluated.
 */
export function storedPatternConfig(config: unknown): PatternConfig | null {
  if (!isObject(config)) return null;
  const checked = validatePatternConfig(config);
  return checked.ok ? checked.config : null;
}
