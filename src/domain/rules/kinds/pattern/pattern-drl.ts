/**
 * @module The `when` part of a PATTERN rule's DRL: the pattern in words as a comment, then
 * `eval( $m.pattern("<normalised config as JSON>") )`, which the parser reads back through the
 * same validator, so that compiling checks the stored config survives the text byte for byte.
 */
import { javaString } from '../../drl-syntax.ts';
import type { PatternConfig } from './pattern-config.ts';
import { patternText } from './pattern-text.ts';
import { validatePatternConfig } from './pattern-validation.ts';

/** `$m.pattern(json)`: the sequence matcher over the partition's events (PATTERN). */
export const PATTERN_FUNCTION = 'pattern';

export function patternWhenLines(config: PatternConfig, indent: string): string[] {
  return [
    `${indent}// ${patternText(config).replace(/[\r\n]/g, ' ')}`,
    `${indent}eval( $m.${PATTERN_FUNCTION}(${javaString(JSON.stringify(config))}) )`,
  ];
}

/** The config a `$m.pattern(...)` argument holds; throws a message when it is not one. */
export function parsePatternArgument(text: string): PatternConfig {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('the pattern argument is not JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new Error('the pattern argument is not an object');
  const checked = validatePatternConfig(json as Record<string, unknown>);
  if (!checked.ok) throw new Error(`invalid pattern: ${checked.errors.join('; ')}`);
  return checked.config;
}

/** Whether two normalised configs are the same (their canonical JSON, keys in validator order). */
export const samePattern = (a: PatternConfig, b: PatternConfig): boolean =>
  JSON.stringify(a) === JSON.stringify(b);
