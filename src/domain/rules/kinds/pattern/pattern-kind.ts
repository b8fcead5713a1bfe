/**
 * @module PATTERN: a sequence of events per partition (and optionally an event that must not
 * follow), matched on the stored events themselves. Its code is the rest of this
 * folder; this object is what the generic code reaches.
 */
import { neverFiresLines, readNeverFires } from '../../drl-syntax.ts';
import { prepareNever } from '../../evaluator.ts';
import { patternRecommendations } from './pattern-advice.ts';
import type { PatternCondition, PatternConfig } from './pattern-config.ts';
import {
  PATTERN_FUNCTION,
  parsePatternArgument,
  patternWhenLines,
  samePattern,
} from './pattern-drl.ts';
import { patternText } from './pattern-text.ts';
import { storedPatternConfig, validatePatternConfig } from './pattern-validation.ts';
import type { RuleConfig } from '../../rule-types.ts';
import type { DrlWhenReader, RuleKind } from '../rule-kind.ts';
import { PatternConfigSchema } from './pattern-schema.ts';

const TYPE = 'PATTERN';

/** `eval( $m.pattern("...") )`: the config, read back through its validator. */
function patternCondition(p: DrlWhenReader): PatternConfig {
  p.take('ident', 'eval');
  p.take('punct', '(');
  p.take('ident', '$m');
  p.take('punct', '.');
  p.take('ident', PATTERN_FUNCTION);
  p.take('punct', '(');
  const argument = p.take('string');
  p.take('punct', ')');
  p.take('punct', ')');
  try {
    return parsePatternArgument(argument.text);
  } catch (error) {
    return p.failAt(argument.line, (error as Error).message);
  }
}

/** `where` conditions `eventType` / `source` EQUALS a string name a key. */
function whereKey(
  condition: PatternCondition,
  keys: { readonly types: Set<string>; readonly sources: Set<string> },
): void {
  if (condition.operator !== 'EQUALS' || typeof condition.value !== 'string') return;
  if (condition.field === 'eventType') keys.types.add(condition.value);
  if (condition.field === 'source') keys.sources.add(condition.value);
}

/**
 * A rule stored before PATTERN rules were defined keeps the object it was given (and its DRL stub):
 * it never fires. So the hooks take any stored config, and read it through storedPatternConfig.
 */
export const PATTERN_KIND: RuleKind<RuleConfig> = {
  type: TYPE,
  configSchema: PatternConfigSchema,
  validate: (config) => validatePatternConfig(config),
  drl: {
    // keepFiringSeconds is in the pattern's JSON; pendingSeconds does not apply.
    attributes: () => [],
    when: (config, pad) => {
      const pattern = storedPatternConfig(config);
      return pattern === null ? neverFiresLines(TYPE, pad) : patternWhenLines(pattern, pad);
    },
    parseWhen: (reader) => {
      if (reader.peekText(2) === '$m')
        return { condition: null, pattern: patternCondition(reader) };
      readNeverFires(reader);
      return { condition: null };
    },
    survived: (config, back) => {
      const pattern = storedPatternConfig(config);
      if (pattern === null)
        return back.condition === null && back.pattern === undefined
          ? null
          : 'the stub condition did not survive';
      return back.pattern !== undefined && samePattern(back.pattern, pattern)
        ? null
        : 'the pattern did not survive';
    },
  },
  text: (config) => {
    const pattern = storedPatternConfig(config);
    return pattern === null ? `${TYPE} (not evaluated)` : patternText(pattern);
  },
  evaluation: {
    prepare: (_config, set) => prepareNever(TYPE, set),
    readSpanMs: () => 0,
    // A missing event completes no sequence (no false fire), except the one awaited by an
    // `absent` step, whose deadline would pass.
    countsEvents: (config) => {
      const absent = (config as { readonly absent?: unknown }).absent;
      return absent !== undefined && absent !== null;
    },
    // Matched on the stored events, never the capped maps, so exact anyway: its keys are watched
    // so the snapshot shows them by name too. partitionBy names a field, not a key.
    watchKeys: (config, keys) => {
      const pattern = storedPatternConfig(config);
      if (pattern === null) return;
      const filters =
        pattern.absent === undefined ? pattern.steps : [...pattern.steps, pattern.absent];
      for (const filter of filters) {
        keys.types.add(filter.eventType);
        filter.where.forEach((condition) => whereKey(condition, keys));
      }
    },
    bandSeries: false,
  },
  advice: {
    warnings: () => [],
    recommendations: (config) => patternRecommendations(config as PatternConfig),
  },
  ruleTest: {
    // Simulated by a replay of the last hour of stored events (the HTTP handler's reads pool).
    simulate: () => null,
    replaysEvents: true,
  },
  backtest: {
    readsEvents: true,
    readsClock: () => false,
    chartSeries: () => [], // a match has no value to draw
  },
};
