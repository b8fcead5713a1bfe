/**
 * @module What a rule kind is (issue 31): everything the generic code (validation, DRL, evaluation,
 * explanation, rule test, backtest, OpenAPI) needs of one `ruleType`, in one object. A kind lives
 * in its own folder (kinds/<kind>/) and is listed once in registry.ts; nothing else names it.
 */
import type { TSchema } from '@sinclair/typebox';
import type { BucketedMetrics } from '../../metrics/windows/bucket-read.ts';
import type { WindowedMetrics } from '../../metrics/windows/window-reads.ts';
import type { DrlTokenReader } from '../drl-syntax.ts';
import type { EvaluationResult, PreparedRule, PreparedSet } from '../evaluator.ts';
import type { AnomalyRule } from './anomaly/anomaly-rules.ts';
import type { ParsedDrl } from '../drl-parsed.ts';
import type { Condition, ConditionLeaf, RuleConfig } from '../rule-types.ts';
import type { SeriesDef } from '../backtest/series-defs.ts';

export type RuleConfigValidation =
  | { readonly ok: true; readonly config: RuleConfig }
  | { readonly ok: false; readonly errors: readonly string[] };

/** What a kind's `when` part reads of the DRL parser: tokens, and the condition-tree grammar. */
export interface DrlWhenReader extends DrlTokenReader {
  /** The text of the token `ahead` places on, without taking it. */
  peekText(ahead: number): string | undefined;
  /** A condition tree: `eval( $m.value(...) > x )`, `(and ...)`, `(or ...)`, `not( ... )`. */
  conditionTree(): Condition;
  /** One `eval( $m.<fn>("<metric>", <window>) <op> <threshold> )`. */
  evalLeaf(fn: string): ConditionLeaf;
  /** Throws the parser's syntax error with `message` at `line`. */
  failAt(line: number, message: string): never;
}

/** What a kind's `when` part holds once parsed (ParsedDrl carries it). */
export type ParsedWhen = Pick<ParsedDrl, 'condition' | 'pattern' | 'anomaly'>;

/** What a rule test adds for a kind: the simulation, and the recommendations it gives rise to. */
export interface KindSimulation {
  readonly evaluation: EvaluationResult | null;
  readonly recommendations: readonly string[];
}

/** The rule test's view of the moment: metrics, when the rule became ACTIVE, its live series. */
export interface SimulationContext {
  readonly metrics: WindowedMetrics & Partial<BucketedMetrics>;
  readonly activeSince: number;
  readonly now?: number | undefined;
  readonly live?: AnomalyRule | undefined;
}

export interface RuleKind<Config extends RuleConfig = RuleConfig> {
  /** The `ruleType` of its rules. */
  readonly type: string;
  /**
   * Its ruleConfig as a request may write it, declared once: checked before `validate`, typed,
   * and shown in the OpenAPI document (its `$id` names the component).
   */
  readonly configSchema: TSchema;
  /** Checks a config that is an object; every problem with a hint; the normalised config. */
  validate(config: Readonly<Record<string, unknown>>): RuleConfigValidation;
  readonly drl: {
    /** Rule attributes after `@ruleType` (lifecycle keys), unindented; none keeps the hash. */
    attributes(config: Config): string[];
    /** The lines of its `when` part after `$m : MetricsSnapshot()`, each starting with `pad`. */
    when(config: Config, pad: string): string[];
    /** Reads back what `when` wrote. */
    parseWhen(reader: DrlWhenReader): ParsedWhen;
    /** Why the parsed rule is not the config it was generated from; null when it is. */
    survived(config: Config, parsed: ParsedDrl): string | null;
  };
  /** The condition as one line, stored on each alert. */
  text(config: Config): string;
  readonly evaluation: {
    /** Its yes / no in the set's program (a kind judged elsewhere emits `never`). */
    prepare(config: Config, set: PreparedSet, activeSince: number): PreparedRule;
    /** The span of metrics it reads, in ms: what a restart or a backtest must warm up. */
    readSpanMs(config: Config): number;
    /** Whether a partial view of the events would mislead it (held DEGRADED). */
    countsEvents(config: Config): boolean;
    /** Adds the event types and sources it names. */
    watchKeys(
      config: Config,
      keys: { readonly types: Set<string>; readonly sources: Set<string> },
    ): void;
    /** Judged by the engine's anomaly series instead of the program. */
    readonly bandSeries: boolean;
  };
  readonly advice: {
    /** The rule test's WARNING cases. */
    warnings(config: Config, metrics: WindowedMetrics): string[];
    /** Best-practice hints about the config itself. */
    recommendations(config: Config): string[];
  };
  readonly ruleTest: {
    /** Its simulation against the current metrics; null when there is none. */
    simulate(config: Config, context: SimulationContext): KindSimulation | null;
    /** Its test replays stored events (a reads-pool slot is taken first). */
    readonly replaysEvents: boolean;
  };
  readonly backtest: {
    /** Reads the stored events themselves, not only the metrics they make. */
    readonly readsEvents: boolean;
    /** Reads the clock (a producer-silent metric): evaluated at every step, not only on events. */
    readsClock(config: Config): boolean;
    /** The series a backtest chart draws, keyed as its evaluation names its values. */
    chartSeries(config: Config): SeriesDef[];
  };
}

/** A kind of any config, as the registry holds it (each kind narrows its own config). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRuleKind = RuleKind<any>;
