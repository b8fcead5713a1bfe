/**
 * @module The PATTERN ruleConfig (issue 20 section 1), normalised: sequences of events per
 * partition key within a time window, optionally followed by the absence of an event. Conditions
 * read only the current event (never another step's event): that is what bounds each partition's
 * state to a few numbers per step (docs/rules.md, PATTERN).
 */
import type { LifecycleKeys, OperatorName } from '../../rule-types.ts';

/** The event fields a partition key may be: a tag is `tags.<key>`. */
export const PARTITION_FIELDS = ['userId', 'sessionId', 'source'] as const;
export type PartitionField = (typeof PARTITION_FIELDS)[number] | `tags.${string}`;

/** The event's own fields a `where` condition may read, besides `tags.<key>` and `metadata.<path>`. */
export const EVENT_FIELDS = ['eventType', 'source', 'userId', 'sessionId', 'severity'] as const;

export const CONTIGUITIES = ['relaxed', 'strict'] as const;
export type Contiguity = (typeof CONTIGUITIES)[number];

/**
 * Type aliases rather than interfaces: a PatternConfig is then a RuleConfig's opaque object
 * without rule-types.ts importing this module (no import cycle).
 */

/** A value a condition compares with (JSON scalars). */
export type PatternValue = string | number | boolean | null;

/** One condition on the current event: `metadata.success EQUALS false`. */
export type PatternCondition = {
  /** `source`, `tags.region`, `metadata.http.status`, ... */
  readonly field: string;
  readonly operator: OperatorName;
  readonly value: PatternValue;
};

export type PatternStep = {
  readonly eventType: string;
  readonly where: readonly PatternCondition[];
  /** How many matching events the step takes (1 when `times` was not given). */
  readonly times: { readonly min: number };
  /**
   * relaxed: other events of the partition may come between (Flink's followedBy); strict: the
   * step's events immediately follow the previous step's last one and each other (Flink's next).
   */
  readonly contiguity: Contiguity;
};

/** "The sequence, then no `eventType` (matching `where`) within `withinMinutes`": fires at the deadline. */
export type PatternAbsent = {
  readonly eventType: string;
  readonly where: readonly PatternCondition[];
  readonly withinMinutes: number;
};

export type PatternConfig = Pick<LifecycleKeys, 'keepFiringSeconds'> & {
  readonly partitionBy: PartitionField;
  /** From the first event of a sequence to its last. */
  readonly withinMinutes: number;
  readonly steps: readonly PatternStep[];
  readonly absent?: PatternAbsent;
  readonly maxPartitions: number;
};

export const PATTERN_KEYS = [
  'partitionBy',
  'withinMinutes',
  'steps',
  'absent',
  'maxPartitions',
  'keepFiringSeconds',
] as const;
export const STEP_KEYS = ['eventType', 'where', 'times', 'contiguity'] as const;
export const ABSENT_KEYS = ['eventType', 'where', 'withinMinutes'] as const;
export const CONDITION_KEYS = ['field', 'operator', 'value'] as const;

export const MAX_PATTERN_STEPS = 8;
export const MAX_STEP_TIMES = 1000;
export const MAX_PATTERN_MINUTES = 1440;
/** One second: the evaluator's tick; a shorter window could not be told apart from it. */
export const MIN_PATTERN_MINUTES = 1 / 60;
export const MAX_WHERE_CONDITIONS = 16;
export const DEFAULT_MAX_PARTITIONS = 100_000;
export const MAX_MAX_PARTITIONS = 1_000_000;
